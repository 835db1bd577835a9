// SPDX-License-Identifier: MIT
pragma solidity 0.8.26;

/**
 * @title x402UptoPermit2Proxy, for Holon's local chain
 * @notice The contract x402's `upto` scheme settles through: the spender a payer's Permit2 signature names,
 * which moves up to the signed amount to the payee the signature's witness names, when the facilitator the
 * witness names asks. On Base the x402 Foundation's own contract is at 0x4020A4f3…0002 and Holon's payments
 * settle through it; its source is not published on npm, so this one is written here from what is: the ABI
 * and the witness type `@x402/evm` 2.27 exports (`x402UptoPermit2ProxyABI`, `uptoPermit2WitnessTypes`), and
 * placed by examples/chain at the same address, so the official facilitator calls it as it calls the real
 * one. test/chain/permit2.test.ts checks that every function, event and error of that ABI is this one's.
 *
 * What it enforces, whoever calls it: only the witness's facilitator may settle; never more than the payer
 * permitted; never before the witness's `validAfter`; the money goes to the witness's `to` and nowhere
 * else, because Permit2 checks the payer's signature over the permit and the witness's hash together.
 */

/// The part of Permit2's signature transfer this contract calls (Permit2's own types, by its names).
interface ISignatureTransfer {
    struct TokenPermissions {
        address token;
        uint256 amount;
    }

    struct PermitTransferFrom {
        TokenPermissions permitted;
        uint256 nonce;
        uint256 deadline;
    }

    struct SignatureTransferDetails {
        address to;
        uint256 requestedAmount;
    }

    function permitWitnessTransferFrom(
        PermitTransferFrom calldata permit,
        SignatureTransferDetails calldata transferDetails,
        address owner,
        bytes32 witness,
        string calldata witnessTypeString,
        bytes calldata signature
    ) external;
}

/// EIP-2612's permit, as USDC has it.
interface IERC20Permit {
    function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s) external;
}

contract x402UptoPermit2Proxy {
    /// The payee, the one facilitator that may settle, and the earliest time it may (the latest is the permit's deadline).
    struct Witness {
        address to;
        address facilitator;
        uint256 validAfter;
    }

    /// An EIP-2612 approval of Permit2, signed by the payer, for a payer who has not approved Permit2 yet.
    struct EIP2612Permit {
        uint256 value;
        uint256 deadline;
        bytes32 r;
        bytes32 s;
        uint8 v;
    }

    /// The witness's type as Permit2 appends it to `PermitWitnessTransferFrom(…,`: the primary member, then
    /// every struct type it refers to in alphabetical order (EIP-712's encodeType), exactly as a client signs it.
    string public constant WITNESS_TYPE_STRING =
        "Witness witness)TokenPermissions(address token,uint256 amount)Witness(address to,address facilitator,uint256 validAfter)";
    bytes32 public constant WITNESS_TYPEHASH = keccak256("Witness(address to,address facilitator,uint256 validAfter)");

    /// Permit2. Immutable, set by the constructor or, where the code is placed rather than deployed, linked in.
    ISignatureTransfer public immutable PERMIT2;

    uint256 private entered;

    event Settled();
    event SettledWithPermit();

    error AmountExceedsPermitted();
    error InvalidDestination();
    error InvalidOwner();
    error InvalidPermit2Address();
    error PaymentTooEarly();
    error Permit2612AmountMismatch();
    error ReentrancyGuardReentrantCall();
    error UnauthorizedFacilitator();

    constructor(address permit2) {
        if (permit2 == address(0)) revert InvalidPermit2Address();
        PERMIT2 = ISignatureTransfer(permit2);
    }

    modifier nonReentrant() {
        if (entered == 1) revert ReentrancyGuardReentrantCall();
        entered = 1;
        _;
        entered = 0;
    }

    /// Moves `amount` (at most what the payer permitted) from `owner` to the witness's payee.
    function settle(
        ISignatureTransfer.PermitTransferFrom calldata permit,
        uint256 amount,
        address owner,
        Witness calldata witness,
        bytes calldata signature
    ) external nonReentrant {
        transfer(permit, amount, owner, witness, signature);
        emit Settled();
    }

    /// As `settle`, first letting the payer's EIP-2612 permit approve Permit2 for exactly the permitted amount.
    function settleWithPermit(
        EIP2612Permit calldata permit2612,
        ISignatureTransfer.PermitTransferFrom calldata permit,
        uint256 amount,
        address owner,
        Witness calldata witness,
        bytes calldata signature
    ) external nonReentrant {
        if (permit2612.value != permit.permitted.amount) revert Permit2612AmountMismatch();
        // A permit already used, or a token that already has the approval, is no reason to fail: Permit2's
        // own transfer fails if the approval is missing.
        try
            IERC20Permit(permit.permitted.token).permit(
                owner,
                address(PERMIT2),
                permit2612.value,
                permit2612.deadline,
                permit2612.v,
                permit2612.r,
                permit2612.s
            )
        {} catch {}
        transfer(permit, amount, owner, witness, signature);
        emit SettledWithPermit();
    }

    function transfer(
        ISignatureTransfer.PermitTransferFrom calldata permit,
        uint256 amount,
        address owner,
        Witness calldata witness,
        bytes calldata signature
    ) private {
        if (msg.sender != witness.facilitator) revert UnauthorizedFacilitator();
        if (amount > permit.permitted.amount) revert AmountExceedsPermitted();
        if (owner == address(0)) revert InvalidOwner();
        if (witness.to == address(0)) revert InvalidDestination();
        if (block.timestamp < witness.validAfter) revert PaymentTooEarly();
        bytes32 witnessHash = keccak256(abi.encode(WITNESS_TYPEHASH, witness.to, witness.facilitator, witness.validAfter));
        PERMIT2.permitWitnessTransferFrom(
            permit,
            ISignatureTransfer.SignatureTransferDetails({to: witness.to, requestedAmount: amount}),
            owner,
            witnessHash,
            WITNESS_TYPE_STRING,
            signature
        );
    }
}
