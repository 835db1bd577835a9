// Written by `node --import tsx examples/chain/compile.ts` from contracts/X402UptoPermit2Proxy.sol; do not edit.
// test/chain/artifact.test.ts compiles the source again and fails when this differs.
export const UPTO_PROXY_SOLC = "0.8.26+commit.8a97fa7a.Emscripten.clang";
export const UPTO_PROXY_ABI = [
  {
    "inputs": [
      {
        "internalType": "address",
        "name": "permit2",
        "type": "address"
      }
    ],
    "stateMutability": "nonpayable",
    "type": "constructor"
  },
  {
    "inputs": [],
    "name": "AmountExceedsPermitted",
    "type": "error"
  },
  {
    "inputs": [],
    "name": "InvalidDestination",
    "type": "error"
  },
  {
    "inputs": [],
    "name": "InvalidOwner",
    "type": "error"
  },
  {
    "inputs": [],
    "name": "InvalidPermit2Address",
    "type": "error"
  },
  {
    "inputs": [],
    "name": "PaymentTooEarly",
    "type": "error"
  },
  {
    "inputs": [],
    "name": "Permit2612AmountMismatch",
    "type": "error"
  },
  {
    "inputs": [],
    "name": "ReentrancyGuardReentrantCall",
    "type": "error"
  },
  {
    "inputs": [],
    "name": "UnauthorizedFacilitator",
    "type": "error"
  },
  {
    "anonymous": false,
    "inputs": [],
    "name": "Settled",
    "type": "event"
  },
  {
    "anonymous": false,
    "inputs": [],
    "name": "SettledWithPermit",
    "type": "event"
  },
  {
    "inputs": [],
    "name": "PERMIT2",
    "outputs": [
      {
        "internalType": "contract ISignatureTransfer",
        "name": "",
        "type": "address"
      }
    ],
    "stateMutability": "view",
    "type": "function"
  },
  {
    "inputs": [],
    "name": "WITNESS_TYPEHASH",
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
    "name": "WITNESS_TYPE_STRING",
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
        "components": [
          {
            "components": [
              {
                "internalType": "address",
                "name": "token",
                "type": "address"
              },
              {
                "internalType": "uint256",
                "name": "amount",
                "type": "uint256"
              }
            ],
            "internalType": "struct ISignatureTransfer.TokenPermissions",
            "name": "permitted",
            "type": "tuple"
          },
          {
            "internalType": "uint256",
            "name": "nonce",
            "type": "uint256"
          },
          {
            "internalType": "uint256",
            "name": "deadline",
            "type": "uint256"
          }
        ],
        "internalType": "struct ISignatureTransfer.PermitTransferFrom",
        "name": "permit",
        "type": "tuple"
      },
      {
        "internalType": "uint256",
        "name": "amount",
        "type": "uint256"
      },
      {
        "internalType": "address",
        "name": "owner",
        "type": "address"
      },
      {
        "components": [
          {
            "internalType": "address",
            "name": "to",
            "type": "address"
          },
          {
            "internalType": "address",
            "name": "facilitator",
            "type": "address"
          },
          {
            "internalType": "uint256",
            "name": "validAfter",
            "type": "uint256"
          }
        ],
        "internalType": "struct x402UptoPermit2Proxy.Witness",
        "name": "witness",
        "type": "tuple"
      },
      {
        "internalType": "bytes",
        "name": "signature",
        "type": "bytes"
      }
    ],
    "name": "settle",
    "outputs": [],
    "stateMutability": "nonpayable",
    "type": "function"
  },
  {
    "inputs": [
      {
        "components": [
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
            "internalType": "bytes32",
            "name": "r",
            "type": "bytes32"
          },
          {
            "internalType": "bytes32",
            "name": "s",
            "type": "bytes32"
          },
          {
            "internalType": "uint8",
            "name": "v",
            "type": "uint8"
          }
        ],
        "internalType": "struct x402UptoPermit2Proxy.EIP2612Permit",
        "name": "permit2612",
        "type": "tuple"
      },
      {
        "components": [
          {
            "components": [
              {
                "internalType": "address",
                "name": "token",
                "type": "address"
              },
              {
                "internalType": "uint256",
                "name": "amount",
                "type": "uint256"
              }
            ],
            "internalType": "struct ISignatureTransfer.TokenPermissions",
            "name": "permitted",
            "type": "tuple"
          },
          {
            "internalType": "uint256",
            "name": "nonce",
            "type": "uint256"
          },
          {
            "internalType": "uint256",
            "name": "deadline",
            "type": "uint256"
          }
        ],
        "internalType": "struct ISignatureTransfer.PermitTransferFrom",
        "name": "permit",
        "type": "tuple"
      },
      {
        "internalType": "uint256",
        "name": "amount",
        "type": "uint256"
      },
      {
        "internalType": "address",
        "name": "owner",
        "type": "address"
      },
      {
        "components": [
          {
            "internalType": "address",
            "name": "to",
            "type": "address"
          },
          {
            "internalType": "address",
            "name": "facilitator",
            "type": "address"
          },
          {
            "internalType": "uint256",
            "name": "validAfter",
            "type": "uint256"
          }
        ],
        "internalType": "struct x402UptoPermit2Proxy.Witness",
        "name": "witness",
        "type": "tuple"
      },
      {
        "internalType": "bytes",
        "name": "signature",
        "type": "bytes"
      }
    ],
    "name": "settleWithPermit",
    "outputs": [],
    "stateMutability": "nonpayable",
    "type": "function"
  }
] as const;
/** Runtime code, its immutables left zero: placed.ts links them for the address and chain it is placed on. */
export const UPTO_PROXY_RUNTIME = "0x608060405234801561000f575f80fd5b5060043610610055575f3560e01c8063016c174814610059578063156e21521461006e5780632c03ae6a1461008c5780636afdd850146100c1578063ff11e7b414610100575b5f80fd5b61006c6100673660046105bd565b610113565b005b610076610275565b6040516100839190610683565b60405180910390f35b6100b37fd4171c445a74218b01d4fd8af34ff1106580ea1e36ff837e64484bfaa2253b7581565b604051908152602001610083565b6100e87f000000000000000000000000000000000000000000000000000000000000000081565b6040516001600160a01b039091168152602001610083565b61006c61010e36600461069c565b610291565b5f5460010361013557604051633ee5aeb560e01b815260040160405180910390fd5b60015f55863560208701351461015e5760405163050cda4960e01b815260040160405180910390fd5b61016b602087018761071a565b6001600160a01b031663d505accf857f00000000000000000000000000000000000000000000000000000000000000008a3560208c01356101b260a08e0160808f01610733565b604080516001600160e01b031960e089901b1681526001600160a01b0396871660048201529590941660248601526044850192909252606484015260ff1660848301528a013560a482015260608a013560c482015260e4015f604051808303815f87803b158015610221575f80fd5b505af1925050508015610232575060015b506102418686868686866102f8565b6040517fde5b89d10fc800c459329c382fabfcad0be0ed7e5328e01fae04e507b09ef5d8905f90a150505f80555050505050565b6040518060a001604052806078815260200161081b6078913981565b5f546001036102b357604051633ee5aeb560e01b815260040160405180910390fd5b60015f556102c58686868686866102f8565b6040517f97088ec3606cfe8cc112180570d03fcde05f9b8e1bfef8e27784eaf5dd5691b6905f90a150505f805550505050565b610308604084016020850161071a565b6001600160a01b0316336001600160a01b03161461033957604051630f6fae8760e01b815260040160405180910390fd5b602086013585111561035e5760405163fe64b4c760e01b815260040160405180910390fd5b6001600160a01b038416610385576040516349e27cff60e01b815260040160405180910390fd5b5f610393602085018561071a565b6001600160a01b0316036103ba5760405163ac6b05f560e01b815260040160405180910390fd5b82604001354210156103df5760405163532a9cfd60e11b815260040160405180910390fd5b5f7fd4171c445a74218b01d4fd8af34ff1106580ea1e36ff837e64484bfaa2253b7561040e602086018661071a565b61041e604087016020880161071a565b6040805160208101949094526001600160a01b039283168482015291166060830152850135608082015260a0016040516020818303038152906040528051906020012090507f00000000000000000000000000000000000000000000000000000000000000006001600160a01b031663137c29fe886040518060400160405280885f0160208101906104b0919061071a565b6001600160a01b031681526020018a81525088856040518060a001604052806078815260200161081b6078913989896040518863ffffffff1660e01b8152600401610501979695949392919061077b565b5f604051808303815f87803b158015610518575f80fd5b505af115801561052a573d5f803e3d5ffd5b5050505050505050505050565b5f60808284031215610547575f80fd5b50919050565b80356001600160a01b0381168114610563575f80fd5b919050565b5f60608284031215610547575f80fd5b5f8083601f840112610588575f80fd5b50813567ffffffffffffffff81111561059f575f80fd5b6020830191508360208285010111156105b6575f80fd5b9250929050565b5f805f805f805f8789036101e08112156105d5575f80fd5b60a08112156105e2575f80fd5b508796506105f38960a08a01610537565b9550610120880135945061060a610140890161054d565b935061061a896101608a01610568565b92506101c088013567ffffffffffffffff811115610636575f80fd5b6106428a828b01610578565b989b979a50959850939692959293505050565b5f81518084528060208401602086015e5f602082860101526020601f19601f83011685010191505092915050565b602081525f6106956020830184610655565b9392505050565b5f805f805f8061014087890312156106b2575f80fd5b6106bc8888610537565b9550608087013594506106d160a0880161054d565b93506106e08860c08901610568565b925061012087013567ffffffffffffffff8111156106fc575f80fd5b61070889828a01610578565b979a9699509497509295939492505050565b5f6020828403121561072a575f80fd5b6106958261054d565b5f60208284031215610743575f80fd5b813560ff81168114610695575f80fd5b81835281816020850137505f828201602090810191909152601f909101601f19169091010190565b6001600160a01b0361078c8961054d565b168152602088810135818301526040808a0135908301526060808a01359083015287516001600160a01b0316608083015287015160a08201525f6107db60c08301886001600160a01b03169052565b8560e08301526101406101008301526107f8610140830186610655565b82810361012084015261080c818587610753565b9a995050505050505050505056fe5769746e657373207769746e65737329546f6b656e5065726d697373696f6e73286164647265737320746f6b656e2c75696e7432353620616d6f756e74295769746e657373286164647265737320746f2c6164647265737320666163696c697461746f722c75696e743235362076616c6964416674657229a264697066735822122045d127713897d03ceeb940052fccf57be662e433419c8d7774b5401ca025197064736f6c634300081a0033";
/** Where each immutable sits in the runtime code (byte offsets), by name. */
export const UPTO_PROXY_IMMUTABLES: Record<string, readonly { start: number; length: number }[]> = {"PERMIT2":[{"length":32,"start":198},{"length":32,"start":380},{"length":32,"start":1125}]};
