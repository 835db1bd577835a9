// A small reader for simple, text-based PDF files: it finds the page objects,
// reads their content streams (uncompressed, or FlateDecode) and returns every
// string drawn by Tj / TJ / ' / " with its position on the page.
// It does not handle fonts with custom encodings, images or scanned pages.

import { readFile } from 'node:fs/promises';
import { inflateSync } from 'node:zlib';
import { textWidth } from './helvetica.mjs';

/** A file this reader cannot use; agents report it as the declared error `unreadable_file`. */
export class UnreadablePdf extends Error {}

// WinAnsiEncoding bytes 0x80..0x9F that differ from Latin-1.
const WIN_ANSI = {
  0x80: '\u20ac', 0x82: '\u201a', 0x83: '\u0192', 0x84: '\u201e', 0x85: '\u2026', 0x86: '\u2020',
  0x87: '\u2021', 0x88: '\u02c6', 0x89: '\u2030', 0x8a: '\u0160', 0x8b: '\u2039', 0x8c: '\u0152',
  0x8e: '\u017d', 0x91: '\u2018', 0x92: '\u2019', 0x93: '\u201c', 0x94: '\u201d', 0x95: '\u2022',
  0x96: '\u2013', 0x97: '\u2014', 0x98: '\u02dc', 0x99: '\u2122', 0x9a: '\u0161', 0x9b: '\u203a',
  0x9c: '\u0153', 0x9e: '\u017e', 0x9f: '\u0178',
};

/** Bytes of a PDF string (as a latin1 JS string) to text. */
export function decodePdfString(bytes) {
  if (bytes.startsWith('\u00fe\u00ff')) {
    return Buffer.from(bytes.slice(2), 'latin1').swap16().toString('utf16le');
  }
  let text = '';
  for (const ch of bytes) text += WIN_ANSI[ch.charCodeAt(0)] ?? ch;
  return text;
}

/** Unicode text to the bytes of a WinAnsiEncoding string (as latin1 JS string). */
export function encodeWinAnsi(text) {
  const reverse = Object.fromEntries(Object.entries(WIN_ANSI).map(([byte, ch]) => [ch, Number(byte)]));
  let bytes = '';
  for (const ch of text) {
    const code = reverse[ch] ?? ch.codePointAt(0);
    if (code > 0xff) throw new Error(`character ${JSON.stringify(ch)} is not in WinAnsiEncoding`);
    bytes += String.fromCharCode(code);
  }
  return bytes;
}

// ---------------------------------------------------------------------------
// File structure

function parseObjects(buf) {
  const src = buf.toString('latin1');
  const objects = [];
  const header = /(\d+)\s+(\d+)\s+obj\b/g;
  let match;
  while ((match = header.exec(src))) {
    const start = header.lastIndex;
    const endobj = src.indexOf('endobj', start);
    const streamAt = src.indexOf('stream', start);
    const object = { num: Number(match[1]), dict: '', data: null };
    if (streamAt !== -1 && (endobj === -1 || streamAt < endobj)) {
      object.dict = src.slice(start, streamAt);
      let dataStart = streamAt + 'stream'.length;
      if (src[dataStart] === '\r') dataStart += 1;
      if (src[dataStart] === '\n') dataStart += 1;
      const direct = /\/Length\s+(\d+)(?!\s+\d+\s+R)/.exec(object.dict);
      let dataEnd = direct ? dataStart + Number(direct[1]) : -1;
      if (dataEnd < 0 || !/^\s*endstream/.test(src.slice(dataEnd, dataEnd + 20))) {
        dataEnd = src.indexOf('endstream', dataStart);
        if (dataEnd === -1) throw new UnreadablePdf(`object ${object.num} has a stream without endstream`);
        if (src[dataEnd - 1] === '\n') dataEnd -= 1;
        if (src[dataEnd - 1] === '\r') dataEnd -= 1;
      }
      object.data = buf.subarray(dataStart, dataEnd);
      const after = src.indexOf('endstream', dataEnd);
      header.lastIndex = after === -1 ? src.length : after + 'endstream'.length;
    } else {
      object.dict = src.slice(start, endobj === -1 ? src.length : endobj);
      if (endobj !== -1) header.lastIndex = endobj + 'endobj'.length;
    }
    objects.push(object);
  }
  return objects;
}

function streamContent(object) {
  const filter = /\/Filter\s*(\[[^\]]*\]|\/\w+)/.exec(object.dict);
  if (!filter) return object.data;
  const names = filter[1].match(/\/\w+/g) ?? [];
  if (names.length === 1 && names[0] === '/FlateDecode') {
    try {
      return inflateSync(object.data);
    } catch {
      throw new UnreadablePdf(`object ${object.num}: corrupt FlateDecode stream`);
    }
  }
  throw new UnreadablePdf(`object ${object.num}: unsupported stream filter ${names.join(' ')}`);
}

// ---------------------------------------------------------------------------
// Content streams

function* tokens(src) {
  const DELIM = '()<>[]{}/%';
  let i = 0;
  const n = src.length;
  while (i < n) {
    const c = src[i];
    if (c === ' ' || c === '\n' || c === '\r' || c === '\t' || c === '\f' || c === '\0') {
      i += 1;
    } else if (c === '%') {
      while (i < n && src[i] !== '\n' && src[i] !== '\r') i += 1;
    } else if (c === '(') {
      let depth = 1;
      let bytes = '';
      i += 1;
      while (i < n && depth > 0) {
        const d = src[i];
        if (d === '\\') {
          const e = src[i + 1];
          i += 2;
          if (e === 'n') bytes += '\n';
          else if (e === 'r') bytes += '\r';
          else if (e === 't') bytes += '\t';
          else if (e === 'b') bytes += '\b';
          else if (e === 'f') bytes += '\f';
          else if (e === '\r') {
            if (src[i] === '\n') i += 1; // line continuation
          } else if (e === '\n') {
            // line continuation
          } else if (e >= '0' && e <= '7') {
            let octal = e;
            while (octal.length < 3 && src[i] >= '0' && src[i] <= '7') octal += src[i++];
            bytes += String.fromCharCode(parseInt(octal, 8) & 0xff);
          } else if (e !== undefined) {
            bytes += e; // \( \) \\ and unknown escapes
          }
        } else {
          if (d === '(') depth += 1;
          if (d === ')') depth -= 1;
          if (depth > 0) bytes += d;
          i += 1;
        }
      }
      yield { type: 'string', value: bytes };
    } else if (c === '<' && src[i + 1] === '<') {
      yield { type: 'op', value: '<<' };
      i += 2;
    } else if (c === '>' && src[i + 1] === '>') {
      yield { type: 'op', value: '>>' };
      i += 2;
    } else if (c === '<') {
      const end = src.indexOf('>', i);
      let hex = src.slice(i + 1, end === -1 ? n : end).replace(/[^0-9a-fA-F]/g, '');
      if (hex.length % 2) hex += '0';
      yield { type: 'string', value: Buffer.from(hex, 'hex').toString('latin1') };
      i = end === -1 ? n : end + 1;
    } else if (c === '[' || c === ']') {
      yield { type: 'op', value: c };
      i += 1;
    } else if (c === '/') {
      let j = i + 1;
      while (j < n && !' \n\r\t\f\0'.includes(src[j]) && !DELIM.includes(src[j])) j += 1;
      yield { type: 'name', value: src.slice(i + 1, j) };
      i = j;
    } else {
      let j = i;
      while (j < n && !' \n\r\t\f\0'.includes(src[j]) && !DELIM.includes(src[j])) j += 1;
      if (j === i) j += 1; // stray delimiter such as '{'
      const word = src.slice(i, j);
      i = j;
      if (/^[+-]?(\d+\.?\d*|\.\d+)$/.test(word)) {
        yield { type: 'number', value: Number(word) };
      } else if (word === 'ID') {
        // inline image data: skip to EI
        const end = src.indexOf('EI', i);
        i = end === -1 ? n : end + 2;
      } else {
        yield { type: 'op', value: word };
      }
    }
  }
}

const multiply = (m, n) => [
  m[0] * n[0] + m[1] * n[2], m[0] * n[1] + m[1] * n[3],
  m[2] * n[0] + m[3] * n[2], m[2] * n[1] + m[3] * n[3],
  m[4] * n[0] + m[5] * n[2] + n[4], m[4] * n[1] + m[5] * n[3] + n[5],
];
const IDENTITY = [1, 0, 0, 1, 0, 0];

/** Strings drawn by a content stream: [{x, y, size, width, text}], in drawing order. */
export function textCells(content) {
  const cells = [];
  let stack = [];
  const arrays = [];
  let ctm = IDENTITY;
  const saved = [];
  let tm = IDENTITY;
  let tlm = IDENTITY;
  let fontSize = 0;
  let leading = 0;
  let charSpacing = 0;
  let wordSpacing = 0;

  const moveLine = (tx, ty) => {
    tlm = multiply([1, 0, 0, 1, tx, ty], tlm);
    tm = tlm;
  };
  const show = (bytes, adjustments = []) => {
    const text = decodePdfString(bytes);
    const m = multiply(tm, ctm);
    const scale = Math.hypot(m[2], m[3]) || 1;
    const size = fontSize * scale;
    let advance = textWidth(text, fontSize) + charSpacing * text.length + wordSpacing * (text.split(' ').length - 1);
    for (const a of adjustments) advance -= (a * fontSize) / 1000;
    const x = m[4];
    const y = m[5];
    const width = advance * Math.hypot(m[0], m[1]);
    const last = cells[cells.length - 1];
    if (last && Math.abs(last.y - y) < 0.5 && Math.abs(last.x + last.width - x) < 0.5) {
      last.text += text; // continuation of the previous string
      last.width += width;
    } else {
      cells.push({ x, y, size, width, text });
    }
    tm = multiply([1, 0, 0, 1, advance, 0], tm);
  };

  for (const token of tokens(content.toString('latin1'))) {
    if (token.type !== 'op') {
      (arrays.length ? arrays[arrays.length - 1] : stack).push(token);
      continue;
    }
    const op = token.value;
    if (op === '[') {
      arrays.push([]);
      continue;
    }
    if (op === ']') {
      const array = arrays.pop() ?? [];
      (arrays.length ? arrays[arrays.length - 1] : stack).push({ type: 'array', value: array });
      continue;
    }
    if (op === '<<' || op === '>>') continue;
    const num = (k) => (stack.length >= k ? Number(stack[stack.length - k].value) || 0 : 0);
    const top = stack[stack.length - 1];
    switch (op) {
      case 'q': saved.push(ctm); break;
      case 'Q': ctm = saved.pop() ?? IDENTITY; break;
      case 'cm': ctm = multiply([num(6), num(5), num(4), num(3), num(2), num(1)], ctm); break;
      case 'BT': tm = IDENTITY; tlm = IDENTITY; break;
      case 'Tf': fontSize = num(1); break;
      case 'TL': leading = num(1); break;
      case 'Tc': charSpacing = num(1); break;
      case 'Tw': wordSpacing = num(1); break;
      case 'Td': moveLine(num(2), num(1)); break;
      case 'TD': leading = -num(1); moveLine(num(2), num(1)); break;
      case 'Tm': tlm = [num(6), num(5), num(4), num(3), num(2), num(1)]; tm = tlm; break;
      case 'T*': moveLine(0, -leading); break;
      case 'Tj':
        if (top?.type === 'string') show(top.value);
        break;
      case "'":
        moveLine(0, -leading);
        if (top?.type === 'string') show(top.value);
        break;
      case '"':
        wordSpacing = num(3);
        charSpacing = num(2);
        moveLine(0, -leading);
        if (top?.type === 'string') show(top.value);
        break;
      case 'TJ':
        if (top?.type === 'array') {
          let bytes = '';
          const adjustments = [];
          for (const part of top.value) {
            if (part.type === 'string') bytes += part.value;
            if (part.type === 'number') {
              if (part.value < -250) bytes += ' '; // a kerning gap that wide is a word space
              else adjustments.push(part.value);
            }
          }
          show(bytes, adjustments);
        }
        break;
      default:
        break;
    }
    stack = [];
  }
  for (const cell of cells) cell.text = cell.text.replace(/\s+/g, ' ').trim();
  return cells.filter((cell) => cell.text !== '');
}

// ---------------------------------------------------------------------------

/**
 * Read a PDF file. Returns { pageCount, pages: [{ number, cells }] }.
 * Throws UnreadablePdf when the file is not a PDF this reader understands.
 */
export async function readPdf(path) {
  let buf;
  try {
    buf = await readFile(path);
  } catch (err) {
    throw new UnreadablePdf(`cannot read the file: ${err.code ?? err.message}`);
  }
  const head = buf.subarray(0, 1024).toString('latin1');
  if (!head.includes('%PDF-')) throw new UnreadablePdf('not a PDF file (no %PDF- header)');
  const objects = parseObjects(buf);
  const byNumber = new Map(objects.map((o) => [o.num, o]));
  const pageObjects = objects.filter((o) => /\/Type\s*\/Page(?![A-Za-z])/.test(o.dict));
  if (pageObjects.length === 0) throw new UnreadablePdf('no page objects found (damaged or unusual PDF)');

  const pages = pageObjects.map((page, index) => {
    const contents = /\/Contents\s*(\[[^\]]*\]|\d+\s+\d+\s+R)/.exec(page.dict);
    const refs = contents ? [...contents[1].matchAll(/(\d+)\s+\d+\s+R/g)].map((m) => Number(m[1])) : [];
    const parts = refs.map((num) => {
      const stream = byNumber.get(num);
      if (!stream || stream.data === null) throw new UnreadablePdf(`page ${index + 1}: missing content stream ${num} 0 R`);
      return streamContent(stream);
    });
    return { number: index + 1, cells: textCells(Buffer.concat(parts.flatMap((p) => [p, Buffer.from('\n')]))) };
  });
  return { pageCount: pages.length, pages };
}
