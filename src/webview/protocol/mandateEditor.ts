/** The mandate form (create and edit): human only, never a workspace file. */
import * as z from 'zod/mini';
import { FieldText, panelProtocol, ReadyCommand } from './messages.ts';

/** The statuses a mandate can have. */
export const MANDATE_STATUSES = ['active', 'suspended', 'revoked'] as const;

/** A mandate's status. */
export const MandateStatus = z.enum(MANDATE_STATUSES);
/** A mandate's status. */
export type MandateStatus = z.infer<typeof MandateStatus>;

/** The form's fields, as text the human typed (validated on the host). */
export const MandateFormValues = z.strictObject({
  id: FieldText,
  grantee: FieldText,
  currency: FieldText,
  total: FieldText,
  perDay: FieldText,
  perCall: FieldText,
  threshold: FieldText,
  /** The toolsets ticked (src/shared/toolsets.ts); unknown ones an existing mandate has are kept. */
  toolsets: z.array(FieldText).check(z.maxLength(10)),
  /** One capability per line, with its parameters: the one field that may be long. */
  capabilities: z.string().check(z.maxLength(4000)),
  regions: FieldText,
  retentionDays: FieldText,
  training: z.boolean(),
  expiresAt: FieldText,
  status: MandateStatus,
});
/** The form's fields, as text the human typed (validated on the host). */
export type MandateFormValues = z.infer<typeof MandateFormValues>;

/** The text fields of the form (every field but `toolsets`, `training` and `status`). */
export const MANDATE_TEXT_FIELDS = [
  'id',
  'grantee',
  'currency',
  'total',
  'perDay',
  'perCall',
  'threshold',
  'capabilities',
  'regions',
  'retentionDays',
  'expiresAt',
] as const satisfies readonly (keyof MandateFormValues)[];

/** A field of the form, or `form` for a problem of the whole form. */
export const MandateFormErrorKey = z.enum([...MANDATE_TEXT_FIELDS, 'toolsets', 'training', 'status', 'form']);

/** What the form shows. */
export const MandateEditorState = z.strictObject({
  mode: z.enum(['create', 'edit']),
  values: MandateFormValues,
  /** Field → problem, from the host's validation. */
  errors: z.partialRecord(MandateFormErrorKey, z.string()),
  saved: z.boolean(),
  /**
   * What merchants will see of this mandate: its open AP2 mandate in words, signed with the human's key
   * (its thumbprint) when it was saved; null when it cannot buy, or was never saved.
   */
  consent: z.optional(
    z.nullable(
      z.strictObject({
        terms: z.string().check(z.maxLength(2000)),
        key: z.string().check(z.maxLength(64)),
        signedAt: z.string().check(z.maxLength(40)),
      }),
    ),
  ),
});
/** What the form shows. */
export type MandateEditorState = z.infer<typeof MandateEditorState>;

/** View → host: save these values. */
export const SaveMandateCommand = z.strictObject({ type: z.literal('save'), values: MandateFormValues });
/** View → host: save these values. */
export type SaveMandateCommand = z.infer<typeof SaveMandateCommand>;

/** View → host: close without saving. */
export const CancelCommand = z.strictObject({ type: z.literal('cancel') });
/** View → host: close without saving. */
export type CancelCommand = z.infer<typeof CancelCommand>;

/** Everything the form may send. */
export const MandateEditorCommand = z.discriminatedUnion('type', [ReadyCommand, SaveMandateCommand, CancelCommand]);
/** Everything the form may send. */
export type MandateEditorCommand = z.infer<typeof MandateEditorCommand>;

/** The mandate form's protocol: its state, its state notification and its commands. */
export const mandateEditorProtocol = panelProtocol(MandateEditorState, MandateEditorCommand);
