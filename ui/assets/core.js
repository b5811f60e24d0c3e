// Shared pieces of the web view: building DOM nodes, calling the /v1 API
// with the signed-in key and scope, showing its errors in words, and dates.

// h builds an element: props sets attributes (class, text, on… handlers,
// anything else as an attribute); children may be strings, nodes, arrays
// or null. Text is never parsed as HTML.
export function h(tag, props, ...children) {
  const ns = props && props.svg ? 'http://www.w3.org/2000/svg' : null;
  const el = ns ? document.createElementNS(ns, tag) : document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (v === null || v === undefined || v === false || k === 'svg') continue;
    if (k === 'text') el.textContent = v;
    else if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

// fill replaces the children of el, with the same rules as h.
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

function append(el, kids) {
  for (const c of kids) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(c instanceof Node ? c : String(c));
  }
}

// s builds an SVG element.
export function s(tag, props, ...children) {
  return h(tag, { ...(props || {}), svg: true }, ...children);
}

// The signed-in key and chosen scope live in sessionStorage only: they
// leave with the tab.
export const auth = {
  get key() { return sessionStorage.getItem('graphmem.key') || ''; },
  set key(v) { v ? sessionStorage.setItem('graphmem.key', v) : sessionStorage.removeItem('graphmem.key'); },
  get scope() { return sessionStorage.getItem('graphmem.scope') || ''; },
  set scope(v) { v ? sessionStorage.setItem('graphmem.scope', v) : sessionStorage.removeItem('graphmem.scope'); },
};

// APIError is an answer of the API in its one error shape.
export class APIError extends Error {
  constructor(status, code, message, fields) {
    super(message);
    this.status = status;
    this.code = code;
    this.fields = fields || {};
  }
}

// api calls the /v1 API and returns the decoded answer; an error answer
// throws an APIError.
export async function api(method, path, body) {
  const headers = { Accept: 'application/json' };
  if (auth.key) headers.Authorization = 'Bearer ' + auth.key;
  if (auth.scope) headers['X-Graphmem-Scope'] = auth.scope;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let resp;
  try {
    resp = await fetch('/v1' + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (e) {
    throw new APIError(0, 'unreachable', 'The server could not be reached (' + e.message + ').');
  }
  const text = await resp.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { /* not JSON */ }
  if (!resp.ok) {
    const e = data && data.error;
    if (e) throw new APIError(resp.status, e.code, e.message, e.fields);
    throw new APIError(resp.status, 'http_' + resp.status, 'The server answered ' + resp.status + ' ' + resp.statusText + '.');
  }
  return data;
}

// errorView says what went wrong in words, with each field the API named.
export function errorView(err, what) {
  const box = h('div', { class: 'error', role: 'alert' });
  if (err instanceof APIError) {
    box.append(h('p', null, h('strong', { text: (what ? what + ': ' : '') + err.message }),
      err.code ? h('span', { class: 'muted', text: ' (' + err.code + (err.status ? ', HTTP ' + err.status : '') + ')' }) : null));
    const fields = Object.entries(err.fields);
    if (fields.length) {
      box.append(h('ul', { class: 'fields' }, fields.map(([f, m]) => h('li', null, h('code', { text: f }), ': ' + m))));
    }
  } else {
    box.append(h('p', null, h('strong', { text: (what ? what + ': ' : '') + 'something went wrong in this page' }), ' (' + String(err && err.message || err) + ')'));
  }
  return box;
}

export const enc = encodeURIComponent;

// entityHref links to an entity's page by id, keeping as_of.
export function entityHref(id, asOf) {
  return '/ui/entity/' + enc(id) + (asOf ? '?as_of=' + enc(asOf) : '');
}

// asOfParam turns a date input (2024-03-01) or an RFC 3339 time into the
// RFC 3339 time the API takes (a plain date is midnight UTC); '' if empty,
// null if not a time. Only what the API reads is a time: Date.parse takes
// "garbage 1" for 2001-01-01 and 2024-02-30 for March 1st, so the fields
// are checked one by one.
export function asOfParam(v) {
  v = (v || '').trim();
  if (!v) return '';
  if (/^\d{4}-\d{2}-\d{2}$/.test(v)) v += 'T00:00:00Z';
  const m = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-](\d{2}):(\d{2}))$/.exec(v);
  if (!m) return null;
  const [y, mo, d, hh, mi, ss] = m.slice(1, 7).map(Number);
  const t = new Date(Date.UTC(y, mo - 1, d));
  if (y < 1000 || t.getUTCMonth() !== mo - 1 || t.getUTCDate() !== d || hh > 23 || mi > 59 || ss > 59 ||
      (m[9] && (+m[9] > 23 || +m[10] > 59))) return null;
  return isNaN(Date.parse(v)) ? null : v;
}

// day is the UTC date of an RFC 3339 time, with the time of day when it is
// not midnight: 2024-02-15 08:00.
export function day(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  if (isNaN(d)) return iso;
  const s = d.toISOString();
  const t = s.slice(11, 16);
  return s.slice(0, 10) + (t === '00:00' ? '' : ' ' + t);
}

// interval reads a fact's valid time in words.
export function interval(f) {
  const from = f.valid_from ? 'from ' + day(f.valid_from) : 'since an unknown time';
  return from + (f.valid_to ? ' to ' + day(f.valid_to) : ', still true');
}

// validAt reports whether a fact holds at time t (ms).
// statusAt is a fact's status for a question about valid time t, from
// the status the server gave it now, by the server's rule
// (entity.Fact.StatusAt): what happened to the record itself (retracted,
// forgotten, expired, archived) stands; otherwise its place in valid time
// at t — ended or superseded by then, not yet begun (future), else
// current, even if it has been superseded since.
const recordStatuses = new Set(['retracted', 'forgotten', 'expired', 'archived']);
export function statusAt(f, t) {
  if (recordStatuses.has(f.status)) return f.status;
  if (f.valid_to && Date.parse(f.valid_to) <= t) return f.superseded_by ? 'superseded' : 'ended';
  if (f.valid_from && Date.parse(f.valid_from) > t) return 'future';
  return 'current';
}

export function validAt(f, t) {
  const from = f.valid_from ? Date.parse(f.valid_from) : -Infinity;
  const to = f.valid_to ? Date.parse(f.valid_to) : Infinity;
  return from <= t && t < to && f.status !== 'retracted';
}

// objectText is what a fact says about its subject.
export function objectText(f) {
  return f.value !== undefined && f.value !== '' ? f.value : (f.object || '');
}

export function attr(f, name) {
  const v = f.attributes && f.attributes[name];
  if (v === undefined || v === null || v === '') return '';
  return Array.isArray(v) ? v.join(', ') : (typeof v === 'object' ? JSON.stringify(v) : String(v));
}

// plural reads a count: 1 fact, 2 facts, 1 entity, 3 entities.
export function plural(n, word) {
  if (n === 1) return '1 ' + word;
  return n + ' ' + (word.endsWith('y') ? word.slice(0, -1) + 'ies' : word + 's');
}

export function loading(text) {
  return h('p', { class: 'muted', role: 'status', text: text || 'Loading…' });
}
