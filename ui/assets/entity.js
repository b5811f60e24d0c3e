// The entity page: values as of a date, a timeline with one lane per
// predicate, and the graph around the entity; each picture is followed by
// a list that says the same in words.
import { h, fill, s, api, enc, entityHref, asOfParam, day, interval, validAt, statusAt, objectText, attr, errorView, loading } from './core.js';

const timelinePage = 500; // facts per timeline request ("show more" asks for the next)

export async function entityPage(main, { arg, params, alive, navigate }) {
  const rawAsOf = params.get('as_of') || '';
  const asOf = asOfParam(rawAsOf);
  main.append(loading());
  const ent = await resolve(arg);
  if (!alive()) return;
  fill(main);
  if (!ent.entity) {
    document.title = 'Not found · graphmem';
    main.append(h('h1', { text: 'No entity named “' + arg + '”' }),
      ent.suggestions.length ? h('div', null, h('p', { text: 'Did you mean:' }),
        h('ul', null, ent.suggestions.map((m) => h('li', null, h('a', { href: entityHref(m.entity.id), text: m.entity.name }), ' ', h('span', { class: 'muted', text: m.entity.type })))))
        : h('p', null, 'Nothing in this scope has that name. ', h('a', { href: '/ui/?q=' + enc(arg), text: 'Search for it' })));
    return;
  }
  const e = ent.entity;
  document.title = e.name + ' · graphmem';

  const at = asOf ? Date.parse(asOf) : Date.now();
  const atWords = asOf ? 'as of ' + day(asOf) : 'now';
  const dateInput = h('input', { type: 'date', id: 'as-of', name: 'as_of', value: asOf ? asOf.slice(0, 10) : '' });
  const setAsOf = (v) => {
    const u = new URL(location.href);
    if (v) u.searchParams.set('as_of', v); else u.searchParams.delete('as_of');
    navigate(u.pathname + u.search, true);
  };
  const asOfForm = h('form', { class: 'asof', role: 'search', 'aria-label': 'Time', onsubmit: (ev) => { ev.preventDefault(); setAsOf(dateInput.value); } },
    h('label', { for: 'as-of', text: 'Show as of' }), dateInput,
    h('button', { type: 'submit', text: 'Show' }),
    h('button', { type: 'button', class: 'secondary', onclick: () => setAsOf(''), text: 'Now' }));
  dateInput.addEventListener('change', () => { if (dateInput.value) setAsOf(dateInput.value); });

  main.append(h('div', { class: 'title' },
    h('h1', null, e.name, ' ', h('span', { class: 'badge', text: e.type || 'entity' })),
    e.aliases.length ? h('p', { class: 'muted', text: 'Also known as ' + e.aliases.join(', ') }) : null,
    e.summary ? h('p', { text: e.summary }) : null),
  asOfForm);
  if (asOf === null) {
    main.append(errorView({ message: 'as_of “' + rawAsOf + '” is not a date; showing now' }));
  }

  const valuesBox = h('section', { id: 'values', 'aria-labelledby': 'values-h', class: 'card' }, h('h2', { id: 'values-h', text: 'Values ' + atWords }), loading());
  const detail = h('aside', { id: 'fact-detail', class: 'card detail', 'aria-live': 'polite', hidden: true });
  const tlBox = h('section', { id: 'timeline', 'aria-labelledby': 'timeline-h' }, h('h2', { id: 'timeline-h', text: 'Timeline' }), loading());
  const gBox = h('section', { id: 'graph', 'aria-labelledby': 'graph-h' }, h('h2', { id: 'graph-h', text: 'Graph around it, ' + atWords }), loading());
  main.append(h('div', { class: 'entity-grid' }, h('div', null, valuesBox, tlBox), h('div', null, detail, gBox)));

  const showFact = (f) => showDetail(detail, f, e);
  const state = { facts: [], next: null };
  const loadTimeline = async () => {
    const q = '/entities/' + enc(e.id) + '/timeline?limit=' + timelinePage + (state.next ? '&cursor=' + enc(state.next) : '');
    const page = await api('GET', q);
    if (!alive()) return;
    // As of a date, every status on the page is the status then, as the
    // graph's (asked with as_of) are; the status now stays beside it.
    state.facts.push(...page.items.map((f) => asOf ? { ...f, status: statusAt(f, at), status_now: f.status } : f));
    state.next = page.next_cursor;
    fill(valuesBox, h('h2', { id: 'values-h', text: 'Values ' + atWords }), valuesList(state.facts, e, at, showFact));
    fill(tlBox, h('h2', { id: 'timeline-h', text: 'Timeline' }), ...timeline(state.facts, e, at, asOf, showFact, tlBox.clientWidth),
      ...(state.next ? [h('button', { type: 'button', onclick: loadTimeline, text: 'Show more facts' })] : []));
  };
  await Promise.all([
    loadTimeline().catch((err) => { fill(tlBox, errorView(err, 'The timeline could not be read')); fill(valuesBox); }),
    graphOf(e, asOf, gBox, alive, navigate).catch((err) => fill(gBox, h('h2', { text: 'Graph around it' }), errorView(err, 'The graph could not be read'))),
  ]);
}

// resolve finds an entity by id, else by exact name or alias.
async function resolve(ref) {
  try {
    return { entity: (await api('GET', '/entities/' + enc(ref))).entity };
  } catch (err) {
    if (err.status !== 404) throw err;
  }
  const found = await api('GET', '/entities?name=' + enc(ref) + '&limit=10');
  const exact = found.items.find((m) => m.match === 'exact') || found.items.find((m) => m.match === 'alias');
  return exact ? { entity: exact.entity } : { suggestions: found.items };
}

// lanes groups facts by what they say about the entity: its own
// predicates first, then what others say of it.
function lanes(facts, e) {
  const m = new Map();
  for (const f of facts) {
    const own = f.subject_id === e.id;
    const key = own ? f.predicate : '← ' + f.predicate;
    if (!m.has(key)) m.set(key, { key, own, facts: [] });
    m.get(key).facts.push(f);
  }
  return [...m.values()].sort((a, b) => (b.own - a.own) || a.key.localeCompare(b.key));
}

function laneValue(f, lane) {
  return lane.own ? objectText(f) : f.subject;
}

function valuesList(facts, e, at, showFact) {
  const shown = 8; // values per predicate; the timeline list has them all
  const rows = [];
  for (const lane of lanes(facts, e)) {
    const now = lane.facts.filter((f) => validAt(f, at));
    if (!now.length) continue;
    rows.push(h('dt', { text: lane.key }), now.slice(0, shown).map((f) => h('dd', null,
      h('button', { type: 'button', class: 'link value', onclick: () => showFact(f), text: laneValue(f, lane) }),
      h('span', { class: 'muted', text: ' ' + interval(f) }))),
    now.length > shown ? h('dd', { class: 'muted', text: `and ${now.length - shown} more (see the timeline)` }) : null);
  }
  return rows.length ? h('dl', { class: 'values' }, rows) : h('p', { class: 'muted', text: 'Nothing was true of it at that time.' });
}

// timeline draws one lane per predicate over valid time, then the same
// as a list.
function timeline(facts, e, at, asOf, showFact, boxWidth) {
  if (!facts.length) return [h('p', { class: 'muted', text: 'No facts.' })];
  const ls = lanes(facts, e);
  const times = [];
  for (const f of facts) {
    if (f.valid_from) times.push(Date.parse(f.valid_from));
    if (f.valid_to) times.push(Date.parse(f.valid_to));
  }
  const now = Date.now();
  times.push(now, at);
  let t0 = Math.min(...times), t1 = Math.max(...times);
  const pad = Math.max((t1 - t0) * 0.04, 86400000);
  t0 -= pad; t1 += pad;
  const width = Math.max(Math.round(boxWidth || 900), 320), labelW = Math.min(170, Math.round(width * 0.24)), laneH = 34, top = 24;
  // Values that overlap in time (a "many" predicate) go on rows of their
  // lane; a lane draws at most maxRows of them, the list has them all.
  const maxRows = 6;
  const span = (f) => [f.valid_from ? Date.parse(f.valid_from) : t0, f.valid_to ? Date.parse(f.valid_to) : t1];
  let y = top;
  for (const lane of ls) {
    const ends = [];
    lane.rows = lane.facts.map((f) => {
      const [from, to] = span(f);
      let r = ends.findIndex((end) => end <= from);
      if (r < 0) { r = ends.length; ends.push(to); } else ends[r] = to;
      return r;
    });
    lane.y = y;
    lane.hidden = lane.rows.filter((r) => r >= maxRows).length;
    y += Math.min(ends.length, maxRows) * laneH;
  }
  const height = y + 8;
  const x = (t) => labelW + ((t - t0) / (t1 - t0)) * (width - labelW - 10);
  const svg = s('svg', { viewBox: `0 0 ${width} ${height}`, class: 'timeline-svg', role: 'img',
    'aria-label': `Timeline of ${e.name}: ${facts.length} facts in ${ls.length} lanes; the list below says the same.` });
  for (const tk of ticks(t0, t1)) {
    svg.append(s('line', { x1: x(tk.t), x2: x(tk.t), y1: top - 6, y2: height, class: 'tick' }));
    if (x(tk.t) + 7 * tk.label.length < width) svg.append(s('text', { x: x(tk.t) + 3, y: 12, class: 'tick-label', text: tk.label }));
  }
  ls.forEach((lane) => {
    svg.append(s('text', { x: 4, y: lane.y + laneH / 2 + 4, class: 'lane-label', text: clip(lane.key, Math.floor(labelW / 7)) },
      s('title', { text: lane.key + (lane.hidden ? ` (${lane.hidden} more in the list)` : '') })));
    if (lane.hidden) svg.append(s('text', { x: 4, y: lane.y + laneH + 8, class: 'tick-label', text: `+${lane.hidden} in the list` }));
    lane.facts.forEach((f, i) => {
      if (lane.rows[i] >= maxRows) return;
      const y = lane.y + lane.rows[i] * laneH;
      const [from, to] = span(f);
      const x0 = x(from), w = Math.max(x(to) - x0, 3);
      const cls = 'bar ' + f.status + (validAt(f, at) ? ' at' : '');
      const g = s('g', { class: cls, onclick: () => showFact(f) },
        s('title', { text: `${laneValue(f, lane)} — ${interval(f)} (${f.status})` }),
        s('rect', { x: x0, y: y + 5, width: w, height: laneH - 10, rx: 4 }),
        w > 24 ? s('text', { x: x0 + 6, y: y + laneH / 2 + 4, text: clip(laneValue(f, lane), Math.floor(w / 7)) }) : null);
      svg.append(g);
    });
  });
  svg.append(s('line', { x1: x(at), x2: x(at), y1: top - 10, y2: height, class: 'asof-line' }),
    s('text', { x: Math.min(x(at) + 3, width - 80), y: height - 2, class: 'asof-label', text: asOf ? day(asOf) : 'now' }));

  const list = h('div', { class: 'timeline-list' }, h('h3', { class: 'sr-heading', text: 'Timeline as a list' }),
    ls.map((lane) => h('div', { class: 'lane' }, h('h4', { text: lane.key }),
      h('ol', null, lane.facts.map((f) => h('li', { class: 'fact-row ' + f.status, 'data-fact-id': f.id },
        h('button', { type: 'button', class: 'link value', onclick: () => showFact(f), text: laneValue(f, lane) }),
        ' ', h('span', { class: 'when', text: interval(f) }),
        ' ', h('span', { class: 'status ' + f.status, text: f.status }),
        validAt(f, at) ? h('span', { class: 'badge at', text: asOf ? 'true then' : 'true now' }) : null,
        f.status_now && f.status_now !== f.status ? h('span', { class: 'muted now', text: ' · now ' + f.status_now }) : null,
        h('span', { class: 'muted', text: ` · ${f.source_kind} · confidence ${fmtNum(f.confidence)}` }),
        attr(f, 'reason') ? h('span', { class: 'reason', text: ' · reason: ' + attr(f, 'reason') }) : null))))));
  return [h('div', { class: 'scroll' }, svg), list];
}

function ticks(t0, t1) {
  const out = [];
  const years = (t1 - t0) / (365.25 * 86400000);
  const d = new Date(t0);
  if (years > 1.5) {
    const step = Math.ceil(years / 8);
    for (let y = d.getUTCFullYear() + 1; Date.UTC(y, 0, 1) < t1; y += step) out.push({ t: Date.UTC(y, 0, 1), label: String(y) });
  } else {
    const step = Math.max(1, Math.ceil(years * 12 / 8));
    for (let m = d.getUTCMonth() + 1, y = d.getUTCFullYear(); Date.UTC(y, m, 1) < t1; m += step) {
      const t = Date.UTC(y, m, 1);
      out.push({ t, label: new Date(t).toISOString().slice(0, 7) });
    }
  }
  return out;
}

function clip(t, n) {
  t = String(t);
  return t.length > n ? t.slice(0, Math.max(n - 1, 1)) + '…' : t;
}

function fmtNum(v) {
  return typeof v === 'number' ? String(Math.round(v * 100) / 100) : '—';
}

// showDetail shows everything known about one fact, with the episodes it
// came from quoted.
async function showDetail(box, f, e) {
  box.hidden = false;
  const rows = [
    ['Says', f.text || `${f.subject} ${f.predicate} ${objectText(f)}`],
    ['Valid', interval(f)],
    ['Status', f.status_now && f.status_now !== f.status ? `${f.status} then (now ${f.status_now})` : f.status],
    ['Source kind', f.source_kind],
    ['Confidence', fmtNum(f.confidence)],
    ['Importance', String(f.importance)],
    ['Reason', attr(f, 'reason')],
    ['Alternatives', attr(f, 'alternatives')],
    ['Recorded', day(f.recorded_at)],
  ].filter(([, v]) => v);
  const quotes = h('div', null, loading('Reading the source…'));
  fill(box, h('h2', { id: 'detail-h', text: `${f.predicate}: ${f.subject_id === e.id ? objectText(f) : f.subject}` }),
    h('dl', { class: 'kv' }, rows.map(([k, v]) => [h('dt', { text: k }), h('dd', { text: v })])),
    f.object_id && f.object_id !== e.id ? h('p', null, 'About ', h('a', { href: entityHref(f.object_id), text: f.object })) : null,
    f.subject_id !== e.id ? h('p', null, 'Said of ', h('a', { href: entityHref(f.subject_id), text: f.subject })) : null,
    quotes,
    h('button', { type: 'button', class: 'secondary', onclick: () => { box.hidden = true; }, text: 'Close' }));
  box.querySelector('h2').setAttribute('tabindex', '-1');
  box.querySelector('h2').focus();
  try {
    const d = await api('GET', '/facts/' + enc(f.id));
    fill(quotes, d.episodes.length
      ? h('div', null, h('h3', { text: 'Source' }), d.episodes.map((ep) => h('blockquote', { class: 'quote' },
        h('p', { text: clip(ep.content, 600) }),
        h('footer', { class: 'muted', text: `${ep.speaker ? ep.speaker + ', ' : ''}${day(ep.reference_time)} · ${ep.kind} · ${ep.source_kind}` }))))
      : h('p', { class: 'muted', text: 'No source episode: it was stated as a structured fact.' }));
  } catch (err) {
    fill(quotes, errorView(err, 'The source could not be read'));
  }
}

// graphOf draws the entities and relationships around e as of asOf.
async function graphOf(e, asOf, box, alive, navigate) {
  const g = await api('GET', '/entities/' + enc(e.id) + '/graph?depth=2' + (asOf ? '&as_of=' + enc(asOf) : ''));
  if (!alive()) return;
  const heading = box.querySelector('h2');
  const nodes = new Map(g.nodes.map((n) => [n.id, { ...n, kind: 'entity' }]));
  const edges = g.edges.map((f) => {
    let to = f.object_id;
    if (!to) {
      to = 'value:' + f.id;
      nodes.set(to, { id: to, name: f.value, depth: 1, kind: 'value', via: f.subject_id });
    }
    return { f, from: f.subject_id, to };
  });
  layout(nodes, edges, e.id);
  const view = panZoom(e, nodes, edges, (id) => navigate(entityHref(id, asOf)));
  const list = h('div', { class: 'graph-list' }, h('h3', { class: 'sr-heading', text: 'Relationships as a list' }),
    edges.length ? h('ul', null, edges.map(({ f }) => h('li', { class: 'edge-row ' + f.status },
      nameLink(f.subject_id, f.subject, e, asOf), ' —', h('span', { class: 'pred', text: f.predicate }), '→ ',
      f.object_id ? nameLink(f.object_id, f.object, e, asOf) : h('strong', { text: f.value }),
      ' ', h('span', { class: 'status ' + f.status, text: f.status }),
      h('span', { class: 'muted', text: ' · ' + interval(f) }))))
      : h('p', { class: 'muted', text: 'No relationships at that time.' }),
    g.truncated ? h('p', { class: 'muted', text: 'Only part of the graph is shown: open a neighbour to see around it.' }) : null);
  fill(box, heading, view, list);
}

function nameLink(id, name, e, asOf) {
  return id === e.id ? h('strong', { text: name }) : h('a', { href: entityHref(id, asOf), text: name });
}

// layout places the centre in the middle, its neighbours and values on a
// ring around it and their neighbours on an outer ring near them.
function layout(nodes, edges, centre) {
  const ring1 = [...nodes.values()].filter((n) => n.depth === 1);
  const parent = new Map();
  for (const { from, to } of edges) {
    const a = nodes.get(from), b = nodes.get(to);
    if (!a || !b) continue;
    if (b.depth === 2 && a.depth === 1 && !parent.has(to)) parent.set(to, from);
    if (a.depth === 2 && b.depth === 1 && !parent.has(from)) parent.set(from, to);
  }
  const c = nodes.get(centre);
  c.x = 0; c.y = 0;
  // Rings wide enough for their nodes (about 64 units of arc each).
  const r1 = Math.max(170, (ring1.length * 64) / (2 * Math.PI));
  const r2 = Math.max(r1 + 160, ([...nodes.values()].filter((n) => n.depth === 2).length * 64) / (2 * Math.PI));
  ring1.forEach((n, i) => {
    n.angle = (2 * Math.PI * i) / Math.max(ring1.length, 1) - Math.PI / 2;
    n.x = r1 * Math.cos(n.angle); n.y = r1 * Math.sin(n.angle);
  });
  const slot = (2 * Math.PI) / Math.max(ring1.length, 1);
  const children = new Map();
  for (const n of nodes.values()) {
    if (n.depth !== 2) continue;
    const p = parent.get(n.id);
    if (!children.has(p)) children.set(p, []);
    children.get(p).push(n);
  }
  for (const [p, kids] of children) {
    const base = nodes.get(p) ? nodes.get(p).angle : 0;
    // A parent's children spread around its angle, wider when they are many.
    const range = Math.min(2 * Math.PI * (1 - 1 / Math.max(kids.length, 1)), Math.max(slot * 0.8, (kids.length * 70) / r2));
    kids.forEach((n, i) => {
      n.angle = base + range * ((i + 0.5) / kids.length - 0.5);
      n.x = r2 * Math.cos(n.angle); n.y = r2 * Math.sin(n.angle);
    });
  }
}

// panZoom draws the graph in an SVG that can be dragged and zoomed with a
// pointer, the wheel, the buttons or the keyboard (arrows, + and -).
function panZoom(e, nodes, edges, open) {
  // The view fits every node, with room for the widest labels.
  let minX = -320, maxX = 320, minY = -190, maxY = 190;
  for (const n of nodes.values()) {
    minX = Math.min(minX, n.x - 90); maxX = Math.max(maxX, n.x + 90);
    minY = Math.min(minY, n.y - 30); maxY = Math.max(maxY, n.y + 30);
  }
  const W = maxX - minX, H = maxY - minY;
  const world = s('g', { class: 'world' });
  const svg = s('svg', { viewBox: `${minX} ${minY} ${W} ${H}`, class: 'graph-svg', role: 'img', tabindex: 0,
    'aria-label': `Graph around ${e.name}: ${nodes.size - 1} neighbours and values, ${edges.length} relationships; the list below says the same. Arrow keys pan, plus and minus zoom.` }, world);
  let k = 1, tx = 0, ty = 0;
  const apply = () => world.setAttribute('transform', `translate(${tx} ${ty}) scale(${k})`);
  const zoom = (f) => { k = Math.min(4, Math.max(0.3, k * f)); apply(); };
  for (const { f, from, to } of edges) {
    const a = nodes.get(from), b = nodes.get(to);
    if (!a || !b) continue;
    const solid = f.status === 'current';
    world.append(s('g', { class: 'edge ' + (solid ? 'current' : 'ended') },
      s('title', { text: `${f.subject} ${f.predicate} ${objectText(f)} — ${interval(f)} (${f.status})` }),
      s('line', { x1: a.x, y1: a.y, x2: b.x, y2: b.y }),
      edges.length <= 16 ? s('text', { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 - 4, text: f.predicate }) : null));
  }
  for (const n of nodes.values()) {
    const isCentre = n.id === e.id;
    const label = clip(n.name, 22);
    const w = Math.max(label.length * 7.2 + 18, 44);
    const g = s('g', { class: 'node ' + n.kind + (isCentre ? ' centre' : '') + ' d' + n.depth, transform: `translate(${n.x} ${n.y})` },
      s('title', { text: n.kind === 'value' ? 'value ' + n.name : `${n.name} (${n.type || 'entity'})` }),
      n.kind === 'value' ? s('rect', { x: -w / 2, y: -13, width: w, height: 26, rx: 4 }) : s('ellipse', { rx: w / 2, ry: 17 }),
      s('text', { 'text-anchor': 'middle', y: 4, text: label }));
    if (n.kind === 'entity' && !isCentre) {
      const go = () => open(n.id);
      g.setAttribute('tabindex', '0');
      g.setAttribute('role', 'link');
      g.setAttribute('aria-label', 'Open ' + n.name);
      g.addEventListener('click', go);
      g.addEventListener('keydown', (ev) => { if (ev.key === 'Enter' || ev.key === ' ') { ev.preventDefault(); go(); } });
    }
    world.append(g);
  }
  let drag = null;
  svg.addEventListener('pointerdown', (ev) => {
    if (ev.target.closest('.node.entity:not(.centre)')) return;
    drag = { x: ev.clientX, y: ev.clientY, tx, ty };
    svg.setPointerCapture(ev.pointerId);
  });
  svg.addEventListener('pointermove', (ev) => {
    if (!drag) return;
    const scale = W / svg.getBoundingClientRect().width;
    tx = drag.tx + (ev.clientX - drag.x) * scale; ty = drag.ty + (ev.clientY - drag.y) * scale;
    apply();
  });
  svg.addEventListener('pointerup', () => { drag = null; });
  svg.addEventListener('wheel', (ev) => { ev.preventDefault(); zoom(ev.deltaY < 0 ? 1.15 : 1 / 1.15); }, { passive: false });
  svg.addEventListener('keydown', (ev) => {
    const step = 40;
    const keys = { ArrowLeft: () => { tx += step; }, ArrowRight: () => { tx -= step; }, ArrowUp: () => { ty += step; }, ArrowDown: () => { ty -= step; },
      '+': () => zoom(1.2), '=': () => zoom(1.2), '-': () => zoom(1 / 1.2), '0': () => { k = 1; tx = 0; ty = 0; } };
    if (ev.target !== svg || !keys[ev.key]) return;
    ev.preventDefault(); keys[ev.key](); apply();
  });
  apply();
  const controls = h('div', { class: 'graph-controls' },
    h('button', { type: 'button', 'aria-label': 'Zoom in', onclick: () => zoom(1.25), text: '+' }),
    h('button', { type: 'button', 'aria-label': 'Zoom out', onclick: () => zoom(0.8), text: '−' }),
    h('button', { type: 'button', onclick: () => { k = 1; tx = 0; ty = 0; apply(); }, text: 'Reset' }),
    h('span', { class: 'muted legend' }, h('span', { class: 'solid' }), ' current ', h('span', { class: 'dashed' }), ' ended or superseded'));
  return h('div', { class: 'graph-wrap' }, controls, svg);
}
