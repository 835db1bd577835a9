/**
 * Lists every function, method and arrow function longer than 80 lines: `file:line name lines`, one a
 * line, longest first, and exits 1 when there is any. A piece longer than a screen is one nobody holds
 * in their head while changing it.
 *
 *   node --import tsx scripts/longFunctions.ts [folder]     (default: src)
 *
 * It parses each file on its own (no type-checking), so it is quick and needs no tsconfig.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';

/** The most lines a function may have, from its first line to its closing brace. */
export const MAX_FUNCTION_LINES = 80;

/** One function over the limit. */
export interface LongFunction {
  file: string;
  line: number;
  name: string;
  lines: number;
}

function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...tsFiles(full));
    else if (entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(full);
  }
  return out.sort();
}

type FunctionNode =
  | ts.FunctionDeclaration
  | ts.FunctionExpression
  | ts.ArrowFunction
  | ts.MethodDeclaration
  | ts.ConstructorDeclaration
  | ts.GetAccessorDeclaration
  | ts.SetAccessorDeclaration;

function isFunction(node: ts.Node): node is FunctionNode {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isFunctionExpression(node) ||
    ts.isArrowFunction(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node)
  );
}

function nameText(name: ts.PropertyName | ts.BindingName | undefined, file: ts.SourceFile): string | null {
  if (!name) return null;
  if (ts.isIdentifier(name) || ts.isPrivateIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name)) return name.text;
  return name.getText(file);
}

/** A function's name, or for an anonymous one the name it is bound to, or what it is passed to. */
function functionName(node: FunctionNode, file: ts.SourceFile): string {
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const own = nameText(node.name, file);
  if (own) return own;
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
    return nameText(parent.name, file) ?? '(anonymous)';
  if (ts.isCallExpression(parent)) return `(argument of ${parent.expression.getText(file).slice(0, 60)})`;
  return '(anonymous)';
}

/** Every function in `file` over the limit, in the order they appear. */
export function longFunctionsIn(fileName: string, text: string, max = MAX_FUNCTION_LINES): LongFunction[] {
  const file = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: LongFunction[] = [];
  const visit = (node: ts.Node): void => {
    if (isFunction(node) && node.body) {
      const first = file.getLineAndCharacterOfPosition(node.getStart(file)).line;
      const last = file.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = last - first + 1;
      if (lines > max) found.push({ file: fileName, line: first + 1, name: functionName(node, file), lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** Every function under `dir` over the limit, longest first. */
export function longFunctions(dir: string, max = MAX_FUNCTION_LINES): LongFunction[] {
  return tsFiles(dir)
    .flatMap((f) => longFunctionsIn(path.relative(process.cwd(), f), fs.readFileSync(f, 'utf8'), max))
    .sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file) || a.line - b.line);
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(__filename)) {
  const dir = process.argv[2] ?? 'src';
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) {
    process.stderr.write(`longFunctions: ${dir} is not a folder\n`);
    process.exit(2);
  }
  const found = longFunctions(dir);
  for (const f of found) process.stdout.write(`${f.file}:${f.line} ${f.name} ${f.lines}\n`);
  process.exit(found.length > 0 ? 1 : 0);
}
