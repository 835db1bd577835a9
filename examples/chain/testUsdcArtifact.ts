// Written by `node --import tsx examples/chain/compile.ts` from contracts/TestUSDC.sol; do not edit.
// test/chain/artifact.test.ts compiles the source again and fails when this differs.
export const TEST_USDC_SOLC = "0.8.26+commit.8a97fa7a.Emscripten.clang";
export const TEST_USDC_ABI = [
  {
    "inputs": [],
    "stateMutability": "nonpayable",
    "type": "constructor"
  },
  {
    "anonymous": false,
    "inputs": [
      {
        "indexed": true,
        "internalType": "address",
        "name": "owner",
        "type": "address"
      },
      {
        "indexed": true,
        "internalType": "address",
        "name": "spender",
        "type": "address"
      },
      {
        "indexed": false,
        "internalType": "uint256",
        "name": "value",
        "type": "uint256"
      }
    ],
    "name": "Approval",
    "type": "event"
  },
  {
    "anonymous": false,
    "inputs": [
      {
        "indexed": true,
        "internalType": "address",
        "name": "authorizer",
        "type": "address"
      },
      {
        "indexed": true,
        "internalType": "bytes32",
        "name": "nonce",
        "type": "bytes32"
      }
    ],
    "name": "AuthorizationCanceled",
    "type": "event"
  },
  {
    "anonymous": false,
    "inputs": [
      {
        "indexed": true,
        "internalType": "address",
        "name": "authorizer",
        "type": "address"
      },
      {
        "indexed": true,
        "internalType": "bytes32",
        "name": "nonce",
        "type": "bytes32"
      }
    ],
    "name": "AuthorizationUsed",
    "type": "event"
  },
  {
    "anonymous": false,
    "inputs": [
      {
        "indexed": true,
        "internalType": "address",
        "name": "minter",
        "type": "address"
      },
      {
        "indexed": true,
        "internalType": "address",
        "name": "to",
        "type": "address"
      },
      {
        "indexed": false,
        "internalType": "uint256",
        "name": "amount",
        "type": "uint256"
      }
    ],
    "name": "Mint",
    "type": "event"
  },
  {
    "anonymous": false,
    "inputs": [
      {
        "indexed": true,
        "internalType": "address",
        "name": "from",
        "type": "address"
      },
      {
        "indexed": true,
        "internalType": "address",
        "name": "to",
        "type": "address"
      },
      {
        "indexed": false,
        "internalType": "uint256",
        "name": "value",
        "type": "uint256"
      }
    ],
    "name": "Transfer",
    "type": "event"
  },
  {
    "inputs": [],
    "name": "CANCEL_AUTHORIZATION_TYPEHASH",
    "outputs": [
      {
        "internalType": "bytes32",
        "name": "",
        "type": "bytes32"
      }
    ],
    "stateMutability": "view",
    "type": "function"
  },
  {
    "inputs": [],
    "name": "DOMAIN_SEPARATOR",
    "outputs": [
      {
        "internalType": "bytes32",
        "name": "",
        "type": "bytes32"
      }
    ],
    "stateMutability": "view",
    "type": "function"
  },
  {
    "inputs": [],
    "name": "PERMIT_TYPEHASH",
    "outputs": [
      {
        "internalType": "bytes32",
        "name": "",
        "type": "bytes32"
      }
    ],
    "stateMutability": "view",
    "type": "function"
  },
  {
    "inputs": [],
    "name": "RECEIVE_WITH_AUTHORIZATION_TYPEHASH",
    "outputs": [
      {
        "internalType": "bytes32",
        "name": "",
        "type": "bytes32"
      }
    ],
    "stateMutability": "view",
    "type": "function"
  },
  {
    "inputs": [],
    "name": "TRANSFER_WITH_AUTHORIZATION_TYPEHASH",
    "outputs": [
      {
        "internalType": "bytes32",
        "name": "",
        "type": "bytes32"
      }
    ],
    "stateMutability": "view",
    "type": "function"
  },
  {
    "inputs": [
      {
        "internalType": "address",
        "name": "",
        "type": "address"
      },
      {
        "internalType": "address",
        "name": "",
        "type": "address"
      }
    ],
    "name": "allowance",
    "outputs": [
      {
        "internalType": "uint256",
        "name": "",
        "type": "uint256"
      }
    ],
    "stateMutability": "view",
    "type": "function"
  },
  {
    "inputs": [
      {
        "internalType": "address",
        "name": "spender",
        "type": "address"
      },
      {
        "internalType": "uint256",
        "name": "value",
        "type": "uint256"
      }
    ],
    "name": "approve",
    "outputs": [
      {
        "internalType": "bool",
        "name": "",
        "type": "bool"
      }
    ],
    "stateMutability": "nonpayable",
    "type": "function"
  },
  {
    "inputs": [
      {
        "internalType": "address",
        "name": "authorizer",
        "type": "address"
      },
      {
        "internalType": "bytes32",
        "name": "nonce",
        "type": "bytes32"
      }
    ],
    "name": "authorizationState",
    "outputs": [
      {
        "internalType": "bool",
        "name": "",
        "type": "bool"
      }
    ],
    "stateMutability": "view",
    "type": "function"
  },
  {
    "inputs": [
      {
        "internalType": "address",
        "name": "",
        "type": "address"
      }
    ],
    "name": "balanceOf",
    "outputs": [
      {
        "internalType": "uint256",
        "name": "",
        "type": "uint256"
      }
    ],
    "stateMutability": "view",
    "type": "function"
  },
  {
    "inputs": [
      {
        "internalType": "address",
        "name": "authorizer",
        "type": "address"
      },
      {
        "internalType": "bytes32",
        "name": "nonce",
        "type": "bytes32"
      },
      {
        "internalType": "uint8",
        "name": "v",
        "type": "uint8"
      },
      {
        "internalType": "bytes32",
        "name": "r",
        "type": "bytes32"
      },
      {
        "internalType": "bytes32",
        "name": "s",
        "type": "bytes32"
      }
    ],
    "name": "cancelAuthorization",
    "outputs": [],
    "stateMutability": "nonpayable",
    "type": "function"
  },
  {
    "inputs": [
      {
        "internalType": "address",
        "name": "authorizer",
        "type": "address"
      },
      {
        "internalType": "bytes32",
        "name": "nonce",
        "type": "bytes32"
      },
      {
        "internalType": "bytes",
        "name": "signature",
        "type": "bytes"
      }
    ],
    "name": "cancelAuthorization",
    "outputs": [],
    "stateMutability": "nonpayable",
    "type": "function"
  },
  {
    "inputs": [],
    "name": "currency",
    "outputs": [
      {
        "internalType": "string",
        "name": "",
        "type": "string"
      }
    ],
    "stateMutability": "view",
    "type": "function"
  },
  {
    "inputs": [],
    "name": "decimals",
    "outputs": [
      {
        "internalType": "uint8",
        "name": "",
        "type": "uint8"
      }
    ],
    "stateMutability": "view",
    "type": "function"
  },
  {
    "inputs": [
      {
        "internalType": "address",
        "name": "spender",
        "type": "address"
      },
      {
        "internalType": "uint256",
        "name": "decrement",
        "type": "uint256"
      }
    ],
    "name": "decreaseAllowance",
    "outputs": [
      {
        "internalType": "bool",
        "name": "",
        "type": "bool"
      }
    ],
    "stateMutability": "nonpayable",
    "type": "function"
  },
  {
    "inputs": [
      {
        "internalType": "address",
        "name": "spender",
        "type": "address"
      },
      {
        "internalType": "uint256",
        "name": "increment",
        "type": "uint256"
      }
    ],
    "name": "increaseAllowance",
    "outputs": [
      {
        "internalType": "bool",
        "name": "",
        "type": "bool"
      }
    ],
    "stateMutability": "nonpayable",
    "type": "function"
  },
  {
    "inputs": [
      {
        "internalType": "address",
        "name": "to",
        "type": "address"
      },
      {
        "internalType": "uint256",
        "name": "amount",
        "type": "uint256"
      }
    ],
    "name": "mint",
    "outputs": [
      {
        "internalType": "bool",
        "name": "",
        "type": "bool"
      }
    ],
    "stateMutability": "nonpayable",
    "type": "function"
  },
  {
    "inputs": [],
    "name": "minter",
    "outputs": [
      {
        "internalType": "address",
        "name": "",
        "type": "address"
      }
    ],
    "stateMutability": "view",
    "type": "function"
  },
  {
    "inputs": [],
    "name": "name",
    "outputs": [
      {
        "internalType": "string",
        "name": "",
        "type": "string"
      }
    ],
    "stateMutability": "view",
    "type": "function"
  },
  {
    "inputs": [
      {
        "internalType": "address",
        "name": "",
        "type": "address"
      }
    ],
    "name": "nonces",
    "outputs": [
      {
        "internalType": "uint256",
        "name": "",
        "type": "uint256"
      }
    ],
    "stateMutability": "view",
    "type": "function"
  },
  {
    "inputs": [
      {
        "internalType": "address",
        "name": "owner",
        "type": "address"
      },
      {
        "internalType": "address",
        "name": "spender",
        "type": "address"
      },
      {
        "internalType": "uint256",
        "name": "value",
        "type": "uint256"
      },
      {
        "internalType": "uint256",
        "name": "deadline",
        "type": "uint256"
      },
      {
        "internalType": "bytes",
        "name": "signature",
        "type": "bytes"
      }
    ],
    "name": "permit",
    "outputs": [],
    "stateMutability": "nonpayable",
    "type": "function"
  },
  {
    "inputs": [
      {
        "internalType": "address",
        "name": "owner",
        "type": "address"
      },
      {
        "internalType": "address",
        "name": "spender",
        "type": "address"
      },
      {
        "internalType": "uint256",
        "name": "value",
        "type": "uint256"
      },
      {
        "internalType": "uint256",
        "name": "deadline",
        "type": "uint256"
      },
      {
        "internalType": "uint8",
        "name": "v",
        "type": "uint8"
      },
      {
        "internalType": "bytes32",
        "name": "r",
        "type": "bytes32"
      },
      {
        "internalType": "bytes32",
        "name": "s",
        "type": "bytes32"
      }
    ],
    "name": "permit",
    "outputs": [],
    "stateMutability": "nonpayable",
    "type": "function"
  },
  {
    "inputs": [
      {
        "internalType": "address",
        "name": "from",
        "type": "address"
      },
      {
        "internalType": "address",
        "name": "to",
        "type": "address"
      },
      {
        "internalType": "uint256",
        "name": "value",
        "type": "uint256"
      },
      {
        "internalType": "uint256",
        "name": "validAfter",
        "type": "uint256"
      },
      {
        "internalType": "uint256",
        "name": "validBefore",
        "type": "uint256"
      },
      {
        "internalType": "bytes32",
        "name": "nonce",
        "type": "bytes32"
      },
      {
        "internalType": "bytes",
        "name": "signature",
        "type": "bytes"
      }
    ],
    "name": "receiveWithAuthorization",
    "outputs": [],
    "stateMutability": "nonpayable",
    "type": "function"
  },
  {
    "inputs": [
      {
        "internalType": "address",
        "name": "from",
        "type": "address"
      },
      {
        "internalType": "address",
        "name": "to",
        "type": "address"
      },
      {
        "internalType": "uint256",
        "name": "value",
        "type": "uint256"
      },
      {
        "internalType": "uint256",
        "name": "validAfter",
        "type": "uint256"
      },
      {
        "internalType": "uint256",
        "name": "validBefore",
        "type": "uint256"
      },
      {
        "internalType": "bytes32",
        "name": "nonce",
        "type": "bytes32"
      },
      {
        "internalType": "uint8",
        "name": "v",
        "type": "uint8"
      },
      {
        "internalType": "bytes32",
        "name": "r",
        "type": "bytes32"
      },
      {
        "internalType": "bytes32",
        "name": "s",
        "type": "bytes32"
      }
    ],
    "name": "receiveWithAuthorization",
    "outputs": [],
    "stateMutability": "nonpayable",
    "type": "function"
  },
  {
    "inputs": [],
    "name": "symbol",
    "outputs": [
      {
        "internalType": "string",
        "name": "",
        "type": "string"
      }
    ],
    "stateMutability": "view",
    "type": "function"
  },
  {
    "inputs": [],
    "name": "totalSupply",
    "outputs": [
      {
        "internalType": "uint256",
        "name": "",
        "type": "uint256"
      }
    ],
    "stateMutability": "view",
    "type": "function"
  },
  {
    "inputs": [
      {
        "internalType": "address",
        "name": "to",
        "type": "address"
      },
      {
        "internalType": "uint256",
        "name": "value",
        "type": "uint256"
      }
    ],
    "name": "transfer",
    "outputs": [
      {
        "internalType": "bool",
        "name": "",
        "type": "bool"
      }
    ],
    "stateMutability": "nonpayable",
    "type": "function"
  },
  {
    "inputs": [
      {
        "internalType": "address",
        "name": "from",
        "type": "address"
      },
      {
        "internalType": "address",
        "name": "to",
        "type": "address"
      },
      {
        "internalType": "uint256",
        "name": "value",
        "type": "uint256"
      }
    ],
    "name": "transferFrom",
    "outputs": [
      {
        "internalType": "bool",
        "name": "",
        "type": "bool"
      }
    ],
    "stateMutability": "nonpayable",
    "type": "function"
  },
  {
    "inputs": [
      {
        "internalType": "address",
        "name": "from",
        "type": "address"
      },
      {
        "internalType": "address",
        "name": "to",
        "type": "address"
      },
      {
        "internalType": "uint256",
        "name": "value",
        "type": "uint256"
      },
      {
        "internalType": "uint256",
        "name": "validAfter",
        "type": "uint256"
      },
      {
        "internalType": "uint256",
        "name": "validBefore",
        "type": "uint256"
      },
      {
        "internalType": "bytes32",
        "name": "nonce",
        "type": "bytes32"
      },
      {
        "internalType": "bytes",
        "name": "signature",
        "type": "bytes"
      }
    ],
    "name": "transferWithAuthorization",
    "outputs": [],
    "stateMutability": "nonpayable",
    "type": "function"
  },
  {
    "inputs": [
      {
        "internalType": "address",
        "name": "from",
        "type": "address"
      },
      {
        "internalType": "address",
        "name": "to",
        "type": "address"
      },
      {
        "internalType": "uint256",
        "name": "value",
        "type": "uint256"
      },
      {
        "internalType": "uint256",
        "name": "validAfter",
        "type": "uint256"
      },
      {
        "internalType": "uint256",
        "name": "validBefore",
        "type": "uint256"
      },
      {
        "internalType": "bytes32",
        "name": "nonce",
        "type": "bytes32"
      },
      {
        "internalType": "uint8",
        "name": "v",
        "type": "uint8"
      },
      {
        "internalType": "bytes32",
        "name": "r",
        "type": "bytes32"
      },
      {
        "internalType": "bytes32",
        "name": "s",
        "type": "bytes32"
      }
    ],
    "name": "transferWithAuthorization",
    "outputs": [],
    "stateMutability": "nonpayable",
    "type": "function"
  },
  {
    "inputs": [],
    "name": "version",
    "outputs": [
      {
        "internalType": "string",
        "name": "",
        "type": "string"
      }
    ],
    "stateMutability": "pure",
    "type": "function"
  }
] as const;
export const TEST_USDC_BYTECODE = "0x60a0604052348015600e575f80fd5b5033608052608051611c996100325f395f818161021701526106840152611c995ff3fe608060405234801561000f575f80fd5b50600436106101d1575f3560e01c806388b7ab63116100fe578063cf0929951161009e578063e3ee160e1161006e578063e3ee160e146104c3578063e5a6b10f146104d6578063e94a0102146104f8578063ef55bec614610530575f80fd5b8063cf0929951461044c578063d505accf1461045f578063d916948714610472578063dd62ed3e14610499575f80fd5b8063a0cc6a68116100d9578063a0cc6a68146103ec578063a457c2d714610413578063a9059cbb14610426578063b7b7289914610439575f80fd5b806388b7ab63146103a357806395d89b41146103b65780639fd5a6cf146103d9575f80fd5b80633644e515116101745780635a049a70116101445780635a049a701461032957806370a082311461033e5780637ecebe001461035d5780637f2eecc31461037c575f80fd5b80633644e515146102de57806339509351146102e657806340c10f19146102f957806354fd4d501461030c575f80fd5b806318160ddd116101af57806318160ddd1461027457806323b872dd1461028a57806330adf81f1461029d578063313ce567146102c4575f80fd5b806306fdde03146101d55780630754617214610212578063095ea7b314610251575b5f80fd5b6101fc604051806040016040528060088152602001672aa9a21021b7b4b760c11b81525081565b604051610209919061176a565b60405180910390f35b6102397f000000000000000000000000000000000000000000000000000000000000000081565b6040516001600160a01b039091168152602001610209565b61026461025f366004611797565b610543565b6040519015158152602001610209565b61027c5f5481565b604051908152602001610209565b6102646102983660046117bf565b610559565b61027c7f6e71edae12b1b97f4d1f60370fef10105fa2faae0126114a169c64845d6126c981565b6102cc600681565b60405160ff9091168152602001610209565b61027c61062f565b6102646102f4366004611797565b61063d565b610264610307366004611797565b610678565b6040805180820190915260018152601960f91b60208201526101fc565b61033c610337366004611809565b610888565b005b61027c61034c366004611853565b60016020525f908152604090205481565b61027c61036b366004611853565b60036020525f908152604090205481565b61027c7fd099cc98ef71107a616c4f0f941f04c322d8e254fe26b3c6668db87aae413de881565b61033c6103b136600461190b565b6108bd565b6101fc604051806040016040528060048152602001635553444360e01b81525081565b61033c6103e736600461198a565b61091e565b61027c7f7c7c6cdb67a18743f49ec6fa9b35f50d52ed05cbed4cc592e13b44501c1a226781565b610264610421366004611797565b61092b565b610264610434366004611797565b6109c5565b61033c6104473660046119f7565b6109d1565b61033c61045a36600461190b565b6109e1565b61033c61046d366004611a4a565b610a11565b61027c7f158b0a9edf7a828aad02f63cd515c68ef2f50ba807396f6d12842833a159742981565b61027c6104a7366004611ab0565b600260209081525f928352604080842090915290825290205481565b61033c6104d1366004611ae1565b610a41565b6101fc604051806040016040528060038152602001621554d160ea1b81525081565b610264610506366004611797565b6001600160a01b03919091165f908152600460209081526040808320938352929052205460ff1690565b61033c61053e366004611ae1565b610a9f565b5f61054f338484610b06565b5060015b92915050565b6001600160a01b0383165f9081526002602090815260408083203384529091528120548211156105e15760405162461bcd60e51b815260206004820152602860248201527f45524332303a207472616e7366657220616d6f756e74206578636565647320616044820152676c6c6f77616e636560c01b60648201526084015b60405180910390fd5b6105ec848484610c2a565b6001600160a01b0384165f9081526002602090815260408083203384529091528120805484929061061e908490611b70565b9091555060019150505b9392505050565b5f610638610e05565b905090565b335f8181526002602090815260408083206001600160a01b0387168452909152812054909161054f918590610673908690611b83565b610b06565b5f336001600160a01b037f000000000000000000000000000000000000000000000000000000000000000016146106fb5760405162461bcd60e51b815260206004820152602160248201527f46696174546f6b656e3a2063616c6c6572206973206e6f742061206d696e74656044820152603960f91b60648201526084016105d8565b6001600160a01b03831661075d5760405162461bcd60e51b815260206004820152602360248201527f46696174546f6b656e3a206d696e7420746f20746865207a65726f206164647260448201526265737360e81b60648201526084016105d8565b5f82116107be5760405162461bcd60e51b815260206004820152602960248201527f46696174546f6b656e3a206d696e7420616d6f756e74206e6f7420677265617460448201526806572207468616e20360bc1b60648201526084016105d8565b815f808282546107ce9190611b83565b90915550506001600160a01b0383165f90815260016020526040812080548492906107fa908490611b83565b90915550506040518281526001600160a01b0384169033907fab8530f87dc9b59234c4623bf917212bb2536d647574c8e7e5da92c2ede0c9f89060200160405180910390a36040518281526001600160a01b038416905f907fddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef9060200160405180910390a350600192915050565b6108b685858484876040516020016108a293929190611b96565b604051602081830303815290604052610ed4565b5050505050565b6001600160a01b03861633146108e55760405162461bcd60e51b81526004016105d890611bb9565b6109157fd099cc98ef71107a616c4f0f941f04c322d8e254fe26b3c6668db87aae413de888888888888888610ff7565b50505050505050565b6108b685858585856111d1565b335f9081526002602090815260408083206001600160a01b0386168452909152812054808311156109ac5760405162461bcd60e51b815260206004820152602560248201527f45524332303a2064656372656173656420616c6c6f77616e63652062656c6f77604482015264207a65726f60d81b60648201526084016105d8565b6109bb33856106738685611b70565b5060019392505050565b5f61054f338484610c2a565b6109dc838383610ed4565b505050565b6109157f7c7c6cdb67a18743f49ec6fa9b35f50d52ed05cbed4cc592e13b44501c1a226788888888888888610ff7565b61091587878787868689604051602001610a2d93929190611b96565b6040516020818303038152906040526111d1565b610a947f7c7c6cdb67a18743f49ec6fa9b35f50d52ed05cbed4cc592e13b44501c1a22678a8a8a8a8a8a89898c604051602001610a8093929190611b96565b604051602081830303815290604052610ff7565b505050505050505050565b6001600160a01b0388163314610ac75760405162461bcd60e51b81526004016105d890611bb9565b610a947fd099cc98ef71107a616c4f0f941f04c322d8e254fe26b3c6668db87aae413de88a8a8a8a8a8a89898c604051602001610a8093929190611b96565b6001600160a01b038316610b685760405162461bcd60e51b8152602060048201526024808201527f45524332303a20617070726f76652066726f6d20746865207a65726f206164646044820152637265737360e01b60648201526084016105d8565b6001600160a01b038216610bc95760405162461bcd60e51b815260206004820152602260248201527f45524332303a20617070726f766520746f20746865207a65726f206164647265604482015261737360f01b60648201526084016105d8565b6001600160a01b038381165f8181526002602090815260408083209487168084529482529182902085905590518481527f8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b92591015b60405180910390a3505050565b6001600160a01b038316610c8e5760405162461bcd60e51b815260206004820152602560248201527f45524332303a207472616e736665722066726f6d20746865207a65726f206164604482015264647265737360d81b60648201526084016105d8565b6001600160a01b038216610cf05760405162461bcd60e51b815260206004820152602360248201527f45524332303a207472616e7366657220746f20746865207a65726f206164647260448201526265737360e81b60648201526084016105d8565b6001600160a01b0383165f90815260016020526040902054811115610d665760405162461bcd60e51b815260206004820152602660248201527f45524332303a207472616e7366657220616d6f756e7420657863656564732062604482015265616c616e636560d01b60648201526084016105d8565b6001600160a01b0383165f9081526001602052604081208054839290610d8d908490611b70565b90915550506001600160a01b0382165f9081526001602052604081208054839290610db9908490611b83565b92505081905550816001600160a01b0316836001600160a01b03167fddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef83604051610c1d91815260200190565b60408051808201825260088152672aa9a21021b7b4b760c11b6020918201528151808301835260018152601960f91b9082015281517f8b73c3c69bb8fe3d512ecc4cf759cc79239f7b179b0ffacaa9a75d522b39400f818301527f52878b207aaddbfc15ea7bebcda681eb8ccd306e2227b61cef68505c8c056341818401527fad7c5bef027816a800da1736444fb58a807ef4c9603b7848673f7e3a68eb14a560608201524660808201523060a0808301919091528351808303909101815260c0909101909252815191012090565b610ede8383611338565b604080517f158b0a9edf7a828aad02f63cd515c68ef2f50ba807396f6d12842833a159742960208201526001600160a01b03851691810191909152606081018390525f90608001604051602081830303815290604052805190602001209050610f5084610f4a836113c6565b8461140c565b610f9c5760405162461bcd60e51b815260206004820152601e60248201527f46696174546f6b656e56323a20696e76616c6964207369676e6174757265000060448201526064016105d8565b6001600160a01b0384165f818152600460209081526040808320878452909152808220805460ff19166001179055518592917f1cdd46ff242716cdaa72d159d339a485b3438398348d68f09d7c8c0a59353d8191a350505050565b83421161105a5760405162461bcd60e51b815260206004820152602b60248201527f46696174546f6b656e56323a20617574686f72697a6174696f6e206973206e6f60448201526a1d081e595d081d985b1a5960aa1b60648201526084016105d8565b8242106110b75760405162461bcd60e51b815260206004820152602560248201527f46696174546f6b656e56323a20617574686f72697a6174696f6e2069732065786044820152641c1a5c995960da1b60648201526084016105d8565b6110c18783611338565b6040805160208082018b90526001600160a01b038a811683850152891660608301526080820188905260a0820187905260c0820186905260e080830186905283518084039091018152610100909201909252805191012061112588610f4a836113c6565b6111715760405162461bcd60e51b815260206004820152601e60248201527f46696174546f6b656e56323a20696e76616c6964207369676e6174757265000060448201526064016105d8565b6001600160a01b0388165f818152600460209081526040808320878452909152808220805460ff19166001179055518592917f98de503528ee59b575ef0c0a2576a82497bfc029a5685b209e9ec333479b10a591a3610a94888888610c2a565b5f198214806111e05750428210155b61122c5760405162461bcd60e51b815260206004820152601e60248201527f46696174546f6b656e56323a207065726d69742069732065787069726564000060448201526064016105d8565b6001600160a01b0385165f90815260036020526040812080547f6e71edae12b1b97f4d1f60370fef10105fa2faae0126114a169c64845d6126c991889188918891908661127883611bfe565b909155506040805160208101969096526001600160a01b0394851690860152929091166060840152608083015260a082015260c0810184905260e0016040516020818303038152906040528051906020012090506112d986610f4a836113c6565b6113255760405162461bcd60e51b815260206004820152601a60248201527f454950323631323a20696e76616c6964207369676e617475726500000000000060448201526064016105d8565b611330868686610b06565b505050505050565b6001600160a01b0382165f90815260046020908152604080832084845290915290205460ff16156113c25760405162461bcd60e51b815260206004820152602e60248201527f46696174546f6b656e56323a20617574686f72697a6174696f6e20697320757360448201526d1959081bdc8818d85b98d95b195960921b60648201526084016105d8565b5050565b5f6113cf610e05565b60405161190160f01b6020820152602281019190915260428101839052606201604051602081830303815290604052805190602001209050919050565b5f836001600160a01b03163b5f0361144357836001600160a01b0316611432848461152a565b6001600160a01b0316149050610628565b5f80856001600160a01b0316631626ba7e60e01b868660405160240161146a929190611c16565b60408051601f198184030181529181526020820180516001600160e01b03166001600160e01b03199094169390931790925290516114a89190611c36565b5f60405180830381855afa9150503d805f81146114e0576040519150601f19603f3d011682016040523d82523d5f602084013e6114e5565b606091505b50915091508180156114f957506020815110155b801561152057508051630b135d3f60e11b9061151e9083016020908101908401611c4c565b145b9695505050505050565b5f81516041146115885760405162461bcd60e51b815260206004820152602360248201527f45435265636f7665723a20696e76616c6964207369676e6174757265206c656e6044820152620cee8d60eb1b60648201526084016105d8565b6020820151604083015160608401515f1a7f7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a08211156116185760405162461bcd60e51b815260206004820152602660248201527f45435265636f7665723a20696e76616c6964207369676e6174757265202773276044820152652076616c756560d01b60648201526084016105d8565b8060ff16601b148061162d57508060ff16601c145b6116885760405162461bcd60e51b815260206004820152602660248201527f45435265636f7665723a20696e76616c6964207369676e6174757265202776276044820152652076616c756560d01b60648201526084016105d8565b604080515f8082526020820180845289905260ff841692820192909252606081018590526080810184905260019060a0016020604051602081039080840390855afa1580156116d9573d5f803e3d5ffd5b5050604051601f1901519150506001600160a01b0381166115205760405162461bcd60e51b815260206004820152601c60248201527f45435265636f7665723a20696e76616c6964207369676e61747572650000000060448201526064016105d8565b5f81518084528060208401602086015e5f602082860101526020601f19601f83011685010191505092915050565b602081525f610628602083018461173c565b80356001600160a01b0381168114611792575f80fd5b919050565b5f80604083850312156117a8575f80fd5b6117b18361177c565b946020939093013593505050565b5f805f606084860312156117d1575f80fd5b6117da8461177c565b92506117e86020850161177c565b929592945050506040919091013590565b803560ff81168114611792575f80fd5b5f805f805f60a0868803121561181d575f80fd5b6118268661177c565b94506020860135935061183b604087016117f9565b94979396509394606081013594506080013592915050565b5f60208284031215611863575f80fd5b6106288261177c565b634e487b7160e01b5f52604160045260245ffd5b5f82601f83011261188f575f80fd5b813567ffffffffffffffff8111156118a9576118a961186c565b604051601f8201601f19908116603f0116810167ffffffffffffffff811182821017156118d8576118d861186c565b6040528181528382016020018510156118ef575f80fd5b816020850160208301375f918101602001919091529392505050565b5f805f805f805f60e0888a031215611921575f80fd5b61192a8861177c565b96506119386020890161177c565b955060408801359450606088013593506080880135925060a0880135915060c088013567ffffffffffffffff81111561196f575f80fd5b61197b8a828b01611880565b91505092959891949750929550565b5f805f805f60a0868803121561199e575f80fd5b6119a78661177c565b94506119b56020870161177c565b93506040860135925060608601359150608086013567ffffffffffffffff8111156119de575f80fd5b6119ea88828901611880565b9150509295509295909350565b5f805f60608486031215611a09575f80fd5b611a128461177c565b925060208401359150604084013567ffffffffffffffff811115611a34575f80fd5b611a4086828701611880565b9150509250925092565b5f805f805f805f60e0888a031215611a60575f80fd5b611a698861177c565b9650611a776020890161177c565b95506040880135945060608801359350611a93608089016117f9565b9699959850939692959460a0840135945060c09093013592915050565b5f8060408385031215611ac1575f80fd5b611aca8361177c565b9150611ad86020840161177c565b90509250929050565b5f805f805f805f805f6101208a8c031215611afa575f80fd5b611b038a61177c565b9850611b1160208b0161177c565b975060408a0135965060608a0135955060808a0135945060a08a01359350611b3b60c08b016117f9565b989b979a50959894979396929550929360e081013593506101000135919050565b634e487b7160e01b5f52601160045260245ffd5b8181038181111561055357610553611b5c565b8082018082111561055357610553611b5c565b928352602083019190915260f81b6001600160f81b031916604082015260410190565b60208082526025908201527f46696174546f6b656e56323a2063616c6c6572206d7573742062652074686520604082015264706179656560d81b606082015260800190565b5f60018201611c0f57611c0f611b5c565b5060010190565b828152604060208201525f611c2e604083018461173c565b949350505050565b5f82518060208501845e5f920191825250919050565b5f60208284031215611c5c575f80fd5b505191905056fea2646970667358221220dbe10be9ebb8ef3a77de3226687d493726d96a54781c4f953323bf25fc5c3de464736f6c634300081a0033";
