/**
 * A passkey as Holon keeps it, and one assertion of it as the journal carries it. Everything is
 * base64url, as WebAuthn hands it over, so what the authenticator signed is kept byte for byte.
 */

/** A registered passkey: an ES256 (P-256) public key, by its credential id. */
export interface PasskeyCredential {
  /** The credential id, base64url. */
  id: string;
  /** The public key's coordinates, base64url, 32 bytes each. */
  x: string;
  y: string;
}

/** One WebAuthn assertion (`navigator.credentials.get`): what the authenticator signed, and its signature. */
export interface AssertionJson {
  /** The credential id that signed, base64url. */
  credential: string;
  authenticator_data: string;
  client_data_json: string;
  /** ECDSA over authenticator_data ‖ sha256(client_data_json), DER, as the authenticator gave it. */
  signature: string;
}

/** The relying party every Holon passkey belongs to: its pages are served on this machine's loopback. */
export const RP_ID = 'localhost';
