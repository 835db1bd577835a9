/**
 * What the ceremony page and the loopback server that serves it say to each other. The server is in the
 * core and the page is browser code, and neither may import the other, so the words live here. The
 * server checks every body it receives; these types say what it sends and what it expects.
 */

/** What a human can answer on a decision's page. */
export type CeremonyChoice = 'approve' | 'reject' | 'confirm';

/** The routes under a ceremony's page, each relative to it (a proxy may serve the page under another path). */
export const CEREMONY_ROUTES = { script: 'passkey.js', ceremony: 'ceremony', registered: 'registered', answer: 'answer' } as const;

/** WebAuthn's creation options as JSON (`PublicKeyCredentialCreationOptionsJSON`): what register asks for. */
export interface CreationOptionsJson {
  rp: { id: string; name: string };
  user: { id: string; name: string; displayName: string };
  challenge: string;
  pubKeyCredParams: { type: 'public-key'; alg: number }[];
  timeout: number;
  authenticatorSelection: { residentKey: 'required'; requireResidentKey: true; userVerification: 'required' };
  attestation: 'none';
}

/** WebAuthn's request options as JSON (`PublicKeyCredentialRequestOptionsJSON`): what an assertion signs. */
export interface RequestOptionsJson {
  challenge: string;
  rpId: string;
  allowCredentials: { type: 'public-key'; id: string }[];
  userVerification: 'required';
  timeout: number;
}

/** `GET ./ceremony`: what the page runs when the human clicks. */
export type CeremonyJson =
  | { kind: 'register'; title: string; lines: string[]; options: CreationOptionsJson }
  | { kind: 'decide'; title: string; lines: string[]; choices: { choice: CeremonyChoice; options: RequestOptionsJson }[] };

/** `POST ./registered` answers with the self-assertion the new key must make: it signs the registration's subject. */
export interface RegisteredJson {
  options: RequestOptionsJson;
}

/** The body of `POST ./answer`: the assertion as the browser gave it, and for a decision, the button pressed. */
export interface AnswerBody {
  choice?: CeremonyChoice;
  assertion: unknown;
}

/** Every refusal: a stable code, and a sentence the page shows as it is. */
export interface CeremonyErrorJson {
  error: { code: string; message: string };
}
