// The search, ask, forget and episodes pages.
import { h, fill, api, enc, entityHref, asOfParam, day, interval, attr, errorView, loading, plural, APIError } from './core.js';

// homePage: a search box over entities and facts, and what changed lately.
export async function homePage(main, { params, alive, navigate }) {
  document.title = 'Search · graphmem';
  const q = params.get('q') || '';
  const input = h('input', { type: 'search', id: 'q', name: 'q', value: q, placeholder: 'an entity, a fact, a word…', required: true });
  main.append(h('h1', { text: 'Search memory' }),
    h('form', { role: 'search', class: 'row', onsubmit: (ev) => { ev.preventDefault(); navigate('/ui/?q=' + enc(input.value)); } },
      h('label', { for: 'q', class: 'sr-only', text: 'Search' }), input, h('button', { type: 'submit', text: 'Search' })));
  const results = h('div', { id: 'results' });
  main.append(results);
  if (!q) {
    input.focus();
    await recent(main, alive);
    return;
  }
  results.append(loading());
  const [ents, hits] = await Promise.all([
    api('GET', '/entities?name=' + enc(q) + '&limit=20').catch((e) => e),
    api('POST', '/search', { query: q, limit: 30 }).catch((e) => e),
  ]);
  if (!alive()) return;
  fill(results);
  results.append(h('h2', { text: 'Entities' }));
  if (ents instanceof Error) results.append(errorView(ents));
  else if (!ents.items.length) results.append(h('p', { class: 'muted', text: 'No entity has that name.' }));
  else results.append(h('ul', { class: 'hits' }, ents.items.map((m) => h('li', null,
    h('a', { href: entityHref(m.entity.id), text: m.entity.name }), ' ', h('span', { class: 'badge', text: m.entity.type || 'entity' }),
    h('span', { class: 'muted', text: ` ${m.match} match` })))));
  results.append(h('h2', { text: 'Facts and episodes' }));
  // (Element.append would write a null as the text "null".)
  if (!(hits instanceof Error)) results.append(h('div', { class: 'notes' }, unresolvedView(hits.unresolved), ambiguousView(hits.ambiguous), vectorNote(hits)));
  if (hits instanceof Error) results.append(errorView(hits));
  else if (!hits.hits.length) results.append(h('p', { class: 'muted', text: 'Nothing matches.' }));
  else results.append(h('ol', { class: 'hits' }, hits.hits.map(hitRow)));
}

// unresolvedView says which names of a question memory knows nothing
// about, offering the close known names (never their facts).
function unresolvedView(names) {
  if (!names || !names.length) return null;
  return h('ul', { class: 'unresolved', id: 'unresolved' }, names.map((n) => h('li', null,
    'Memory holds nothing about ', h('strong', { text: n.name }),
    n.candidates.length ? [' — did you mean ', nameLinks(n.candidates), '?'] : null)));
}

// ambiguousView says which names of a question name several entities, all
// of whose facts the answer weighs.
function ambiguousView(names) {
  if (!names || !names.length) return null;
  return h('ul', { class: 'ambiguous', id: 'ambiguous' }, names.map((n) => h('li', null,
    h('strong', { text: n.name }), ' names several entities: ', nameLinks(n.candidates), ' — the answer weighs each')));
}

// pathsView draws the chains of facts an answer crosses: each entity a
// link, each hop its predicate and status, and where a broken path broke.
function pathsView(paths) {
  if (!paths || !paths.length) return null;
  return h('div', { class: 'paths', id: 'paths' }, h('h2', { text: 'Path' }), paths.map((p) => {
    const first = p.hops[0];
    const nodes = [node(first.entity, first.entity_id)];
    for (const hop of p.hops) {
      nodes.push(h('span', { class: 'hop' + (hop.status === 'current' ? '' : ' past') },
        ' —', h('code', { text: hop.predicate + (hop.inverse ? ' (of)' : '') }), '→ ',
        h('span', { class: 'muted', text: hop.status })), ' ', node(hop.to, hop.to_id));
    }
    if (!p.complete) nodes.push(h('span', { class: 'broken', text: ` — memory holds no ${p.missing} for ${p.hops[p.hops.length - 1].to}` }));
    return h('p', { class: 'path' + (p.complete ? '' : ' incomplete') }, nodes);
  }));
}

function node(name, id) {
  return id ? h('a', { class: 'node', href: entityHref(id), text: name }) : h('strong', { class: 'node', text: name });
}

function nameLinks(names) {
  return names.map((c, i) => [i ? ', ' : '', h('a', { href: '/ui/?q=' + enc(c), text: c })]);
}

// vectorNote says that an answer went without the vector list although
// embeddings are on, and why (the API's vectors and vectors_skipped).
function vectorNote(res) {
  if (res.vectors !== 'skipped') return null;
  const why = { timeout: "the question's embedding did not arrive in time", busy: 'the embedder was busy', failed: 'the embedder failed' }[res.vectors_skipped] || res.vectors_skipped;
  return h('p', { class: 'note', id: 'vector-note', role: 'status', text: `Ranked without meaning search: vectors skipped (${res.vectors_skipped}: ${why}).` });
}

function hitRow(hit) {
  if (hit.fact) {
    const f = hit.fact;
    return h('li', null, factLine(f), h('span', { class: 'muted', text: ` · score ${hit.score.toFixed(3)}` }));
  }
  if (hit.entity) {
    return h('li', null, h('a', { href: entityHref(hit.entity.id), text: hit.entity.name }), ' ', h('span', { class: 'badge', text: 'entity' }));
  }
  const ep = hit.episode;
  return h('li', null, h('span', { class: 'badge', text: 'episode' }), ' ', clip(ep ? ep.content : hit.text, 200),
    ep ? h('span', { class: 'muted', text: ' · ' + day(ep.reference_time) }) : null);
}

// factLine reads one fact with links to its entities.
export function factLine(f) {
  return h('span', { class: 'fact-line' },
    h('a', { href: entityHref(f.subject_id), text: f.subject }), ' ', h('span', { class: 'pred', text: f.predicate }), ' ',
    f.object_id ? h('a', { href: entityHref(f.object_id), text: f.object }) : h('strong', { text: f.value }),
    h('span', { class: 'muted', text: ` · ${interval(f)} · ` }), h('span', { class: 'status ' + f.status, text: f.status }));
}

function clip(t, n) {
  t = String(t || '');
  return t.length > n ? t.slice(0, n - 1) + '…' : t;
}

// recent shows what the scope holds and what changed in it lately, and
// the latest forget records.
async function recent(main, alive) {
  const box = h('section', { id: 'overview', 'aria-labelledby': 'recent-h' }, h('h2', { id: 'recent-h', text: 'Recent changes' }), loading());
  main.append(box);
  const [o, audit] = await Promise.all([api('GET', '/overview?limit=20').catch((e) => e), api('GET', '/audit?limit=5').catch((e) => e)]);
  if (!alive()) return;
  fill(box);
  if (o instanceof Error) {
    box.append(h('h2', { id: 'recent-h', text: 'Recent changes' }), errorView(o));
  } else {
    const c = o.counts;
    const n = (k, one) => [h('strong', { text: String(c[k]) }), ' ' + plural(c[k], one).split(' ')[1]];
    box.append(h('p', { id: 'counts', class: 'counts' }, n('facts', 'fact'), ' · ', n('entities', 'entity'), ' · ', n('episodes', 'episode')),
    h('h2', { id: 'recent-h', text: 'Recent changes' }),
    o.changes.length ? h('ol', { class: 'hits changes' }, o.changes.map(changeRow)) : h('p', { class: 'muted', text: 'Nothing changed lately.' }));
  }
  box.append(h('h2', { text: 'Forgotten lately' }));
  if (audit instanceof Error) box.append(errorView(audit));
  else box.append(audit.items.length ? auditTable(audit.items) : h('p', { class: 'muted', text: 'Nothing was forgotten in this scope.' }));
}

function changeRow(ch) {
  if (ch.fact) return h('li', null, h('span', { class: 'badge', text: 'fact' }), ' ', factLine(ch.fact), h('span', { class: 'muted', text: ' · recorded ' + day(ch.fact.recorded_at) }));
  if (ch.entity) return h('li', null, h('span', { class: 'badge', text: 'entity' }), ' ', h('a', { href: entityHref(ch.entity.id), text: ch.entity.name }), h('span', { class: 'muted', text: ` ${ch.entity.type || ''} · updated ${day(ch.entity.updated_at)}` }));
  if (ch.episode) return h('li', null, h('span', { class: 'badge', text: 'episode' }), ' ', clip(ch.episode.content, 160), h('span', { class: 'muted', text: ` · ${ch.episode.status} · ${day(ch.episode.reference_time)}` }));
  const what = ch.kind === 'tombstone' ? 'a forgotten fact left a tombstone' : ch.deleted ? `a ${ch.kind} was deleted` : `a ${ch.kind} was forgotten`;
  return h('li', { class: 'muted' }, h('span', { class: 'badge', text: ch.kind }), ' ' + what);
}

// askPage shows the context block an agent gets for a question, the
// ranked facts behind it and how the search scored each hit.
export async function askPage(main, { params, alive, navigate }) {
  document.title = 'Ask · graphmem';
  const q = params.get('q') || '';
  const f = {
    q: h('textarea', { id: 'ask-q', name: 'q', rows: 2, required: true }, q),
    asOf: h('input', { type: 'date', id: 'ask-as-of', name: 'as_of', value: (params.get('as_of') || '').slice(0, 10) }),
    mode: h('select', { id: 'ask-mode', name: 'mode' }, ['auto', 'current', 'history'].map((m) => h('option', { value: m, selected: m === (params.get('mode') || 'auto'), text: m }))),
    max: h('input', { type: 'number', id: 'ask-max', name: 'max_tokens', min: 50, max: 32000, step: 50, value: params.get('max_tokens') || '1500' }),
  };
  const submit = (ev) => {
    ev.preventDefault();
    const u = new URLSearchParams({ q: f.q.value });
    if (f.asOf.value) u.set('as_of', f.asOf.value);
    if (f.mode.value !== 'auto') u.set('mode', f.mode.value);
    if (f.max.value && f.max.value !== '1500') u.set('max_tokens', f.max.value);
    navigate('/ui/ask?' + u.toString());
  };
  f.q.addEventListener('keydown', (ev) => { if (ev.key === 'Enter' && !ev.shiftKey) submit(ev); });
  main.append(h('h1', { text: 'What an agent is told' }),
    h('form', { class: 'card ask', onsubmit: submit },
      h('label', { for: 'ask-q', text: 'Question' }), f.q,
      h('div', { class: 'row' },
        h('span', null, h('label', { for: 'ask-as-of', text: 'As of ' }), f.asOf),
        h('span', null, h('label', { for: 'ask-mode', text: 'Mode ' }), f.mode),
        h('span', null, h('label', { for: 'ask-max', text: 'Max tokens ' }), f.max),
        h('button', { type: 'submit', text: 'Ask' }))));
  if (!q) { f.q.focus(); return; }
  const out = h('div', { class: 'ask-grid' }, loading());
  main.append(out);
  const asOf = asOfParam(params.get('as_of'));
  const maxTokens = params.get('max_tokens') ? Number(params.get('max_tokens')) : undefined;
  const body = { query: q, format: 'text' };
  if (asOf) body.as_of = asOf;
  if (params.get('mode')) body.mode = params.get('mode');
  if (maxTokens !== undefined) body.max_tokens = Number.isFinite(maxTokens) ? Math.trunc(maxTokens) : params.get('max_tokens');
  const search = { query: q, limit: 20, include_history: params.get('mode') === 'history' };
  if (asOf) search.as_of = asOf;
  const [ctx, hits] = await Promise.all([api('POST', '/context', body).catch((e) => e), api('POST', '/search', search).catch((e) => e)]);
  if (!alive()) return;
  fill(out);
  if (ctx instanceof Error) {
    out.append(errorView(ctx, 'The context could not be built'));
  } else {
    out.append(h('section', { 'aria-labelledby': 'block-h' },
      h('h2', { id: 'block-h', text: 'Context block' }),
      h('p', { class: 'muted', id: 'block-meta', text: `${ctx.tokens} tokens · mode ${ctx.mode} · as of ${day(ctx.as_of)} · vectors ${ctx.vectors}` }),
      vectorNote(ctx),
      unresolvedView(ctx.unresolved),
      ambiguousView(ctx.ambiguous),
      pathsView(ctx.paths),
      h('pre', { class: 'block', id: 'context-block', tabindex: 0, text: ctx.context }),
      h('h2', { text: 'Facts in it' }),
      ctx.facts.length ? h('ol', { class: 'hits' }, ctx.facts.map((cf) => h('li', null, factLine(cf.fact),
        h('span', { class: 'muted', text: ` · ${cf.role} · score ${cf.score.toFixed(3)}` }),
        attr(cf.fact, 'reason') ? h('div', { class: 'reason', text: 'reason: ' + attr(cf.fact, 'reason') }) : null)))
        : h('p', { class: 'muted', text: 'No facts bear on it.' }),
      ctx.entities.length ? h('p', null, 'Entities: ', ctx.entities.map((en, i) => [i ? ', ' : '', h('a', { href: entityHref(en.id), text: en.name })])) : null));
  }
  if (hits instanceof Error) {
    out.append(errorView(hits, 'The search failed'));
  } else {
    // A hit's explanation is one wrapped cell, not a column per part:
    // there may be a dozen, and the table must fit its half of the page.
    out.append(h('section', { 'aria-labelledby': 'rank-h' }, h('h2', { id: 'rank-h', text: 'Ranking signals' }),
      h('div', { class: 'scroll' }, h('table', { class: 'signals' },
        h('thead', null, h('tr', null, h('th', { scope: 'col', text: '#' }), h('th', { scope: 'col', text: 'hit' }), h('th', { scope: 'col', text: 'score' }), h('th', { scope: 'col', text: 'how it adds up' }))),
        h('tbody', null, hits.hits.map((x, i) => h('tr', null, h('td', { text: String(i + 1) }),
          h('td', null, x.fact ? factLine(x.fact) : x.entity ? h('a', { href: entityHref(x.entity.id), text: x.entity.name }) : clip(x.text, 120)),
          h('td', { text: x.score.toFixed(3) }),
          h('td', { class: 'sigs' }, explainView(x.explanation)))))))));
  }
}

// explainView shows how a score was made: the parts its explanation
// combines, joined by + or ×, each with its value and, after =, the
// parts it is made of in turn; a part's effect on the score is its title.
function explainView(x) {
  const op = (n) => (n.combine === 'product' ? ' × ' : ' + ');
  const parts = x.children || [];
  return parts.map((c, i) => h('span', { class: 'sig', title: `changes ${x.name} by ${fmt(c.effect)}` },
    i ? op(x) : '', h('span', { class: 'pred', text: c.name }), ' ' + fmt(c.value),
    c.children ? h('span', { class: 'muted parts', text: ' = ' + c.children.map((g) => `${g.name} ${fmt(g.value)}`).join(op(c)) }) : null));
}

function fmt(v) {
  return Number.isInteger(v) ? String(v) : v.toFixed(3);
}

// forgetPage previews what a forget would remove, then forgets or purges
// exactly that, and shows the audit log.
export async function forgetPage(main, { params, alive }) {
  document.title = 'Forget · graphmem';
  const by = h('select', { id: 'forget-by', name: 'by' },
    [['query', 'facts matching a query'], ['entity', 'an entity and everything about it'], ['fact_ids', 'facts by id']].map(([v, t]) => h('option', { value: v, text: t })));
  by.value = params.get('entity') ? 'entity' : params.get('fact_ids') ? 'fact_ids' : 'query';
  const what = h('input', { id: 'forget-what', name: 'what', required: true, value: params.get('entity') || params.get('fact_ids') || params.get('query') || '' });
  const reason = h('input', { id: 'forget-reason', name: 'reason', maxlength: 1000, placeholder: 'optional' });
  const preview = h('section', { id: 'preview', 'aria-live': 'polite' });
  const auditBox = h('section', { id: 'audit', 'aria-labelledby': 'audit-h' }, h('h2', { id: 'audit-h', text: 'Audit log' }), loading());
  const selection = () => {
    const v = what.value.trim();
    if (by.value === 'entity') return { entity: v };
    if (by.value === 'fact_ids') return { fact_ids: v.split(/[\s,]+/).filter(Boolean) };
    return { query: v };
  };
  const run = async (ev) => {
    ev.preventDefault();
    fill(preview, loading('Previewing…'));
    const sel = selection();
    let res;
    try {
      res = await api('POST', '/forget', { ...sel, mode: 'forget', dry_run: true, reason: reason.value || undefined });
    } catch (e) {
      fill(preview, errorView(e, 'The preview failed'));
      return;
    }
    await showPreview(preview, sel, res, reason, () => loadAudit(auditBox, alive));
  };
  main.append(h('h1', { text: 'Forget' }),
    h('p', { class: 'muted', text: 'Forgotten facts leave every recall path and cannot come back from extraction or import; purge also deletes their source episodes. Nothing happens until you confirm the preview.' }),
    h('form', { class: 'card', onsubmit: run },
      h('label', { for: 'forget-by', text: 'Forget' }), by,
      h('label', { for: 'forget-what', text: 'Which (a query, an entity name or id, or fact ids)' }), what,
      h('label', { for: 'forget-reason', text: 'Reason' }), reason,
      h('button', { type: 'submit', text: 'Preview (dry run)' })),
    preview, auditBox);
  await loadAudit(auditBox, alive);
}

// showPreview lists the facts a forget would remove, by name and date, and
// offers to forget or purge exactly those.
async function showPreview(box, sel, res, reason, done) {
  const ids = res.fact_ids || [];
  const shown = ids.slice(0, 50);
  const facts = await Promise.all(shown.map((id) => api('GET', '/facts/' + enc(id)).then((d) => d.fact).catch((e) => ({ id, error: e }))));
  const counts = `${plural(res.facts, 'fact')}, ${plural(res.episodes, 'episode')}, ${plural(res.entities, 'entity')}`;
  fill(box, h('h2', { text: 'What will go' }),
    h('p', { id: 'preview-counts', text: 'A forget would remove ' + counts + '.' }),
    ids.length ? h('ul', { class: 'preview-list' }, facts.map((f) => h('li', { 'data-fact-id': f.id },
      f.error ? [h('code', { text: f.id }), ' (', f.error.message, ')'] : factLine(f),
      attr(f, 'reason') ? h('span', { class: 'muted', text: ' · reason: ' + attr(f, 'reason') }) : null))) : h('p', { class: 'muted', text: 'Nothing matches: nothing would be forgotten.' }),
    ids.length > shown.length ? h('p', { class: 'muted', text: `…and ${ids.length - shown.length} more.` }) : null);
  if (!res.facts && !res.entities && !res.episodes) return;
  // Act on what was previewed: a query's facts by id, so what goes is what
  // was listed even if memory changed in between.
  const target = sel.query !== undefined ? { fact_ids: ids } : sel;
  const act = async (mode) => {
    const out = h('div', { 'aria-live': 'polite' }, loading(mode === 'purge' ? 'Purging…' : 'Forgetting…'));
    box.append(out);
    try {
      const r = await api('POST', '/forget', { ...target, mode, reason: reason.value || undefined });
      fill(out, h('p', { class: 'done', role: 'status', text: `${mode === 'purge' ? 'Purged' : 'Forgot'} ${plural(r.facts, 'fact')}, ${plural(r.episodes, 'episode')}, ${plural(r.entities, 'entity')}.` }));
      for (const b of box.querySelectorAll('button.act')) b.disabled = true;
      await done();
    } catch (e) {
      fill(out, errorView(e, mode === 'purge' ? 'The purge failed' : 'The forget failed'));
    }
  };
  box.append(h('div', { class: 'row' },
    h('button', { type: 'button', class: 'act danger', id: 'do-forget', onclick: () => act('forget'), text: 'Forget these' }),
    h('button', { type: 'button', class: 'act danger secondary', id: 'do-purge', onclick: () => act('purge'), text: 'Purge these and their sources' })));
}

async function loadAudit(box, alive) {
  let a;
  try {
    a = await api('GET', '/audit?limit=50');
  } catch (e) {
    fill(box, h('h2', { id: 'audit-h', text: 'Audit log' }), errorView(e));
    return;
  }
  if (!alive()) return;
  fill(box, h('h2', { id: 'audit-h', text: 'Audit log' }), a.items.length ? auditTable(a.items) : h('p', { class: 'muted', text: 'Nothing was forgotten in this scope.' }));
}

function auditTable(items) {
  return h('div', { class: 'scroll' }, h('table', { class: 'audit' },
    h('thead', null, h('tr', null, ['when', 'action', 'by', 'reason', 'facts', 'episodes', 'entities'].map((c) => h('th', { scope: 'col', text: c })))),
    h('tbody', null, items.map((r) => h('tr', null,
      h('td', { text: day(r.at) }), h('td', { text: r.action }), h('td', { text: r.actor || '' }), h('td', { text: r.reason || '' }),
      h('td', { title: (r.fact_ids || []).join(' '), text: String(r.result.facts) }), h('td', { text: String(r.result.episodes) }), h('td', { text: String(r.result.entities) }))))));
}

// episodesPage lists the extraction queue, page by page, with the facts
// each episode produced.
export async function episodesPage(main, { params, alive, navigate }) {
  document.title = 'Episodes · graphmem';
  const status = params.get('status') || '';
  const pick = h('select', { id: 'ep-status', name: 'status', onchange: () => navigate('/ui/episodes' + (pick.value ? '?status=' + pick.value : '')) },
    ['', 'queued', 'processing', 'done', 'failed'].map((v) => h('option', { value: v, selected: v === status, text: v || 'any status' })));
  const tbody = h('tbody');
  const more = h('div');
  main.append(h('h1', { text: 'Episodes' }),
    h('div', { class: 'row' }, h('label', { for: 'ep-status', text: 'Status ' }), pick),
    h('div', { class: 'scroll' }, h('table', { class: 'episodes' },
      h('thead', null, h('tr', null, ['when', 'status', 'attempts', 'speaker', 'content', 'facts'].map((c) => h('th', { scope: 'col', text: c })))),
      tbody)), more);
  const load = async (cursor) => {
    const page = await api('GET', '/episodes?limit=50' + (status ? '&status=' + enc(status) : '') + (cursor ? '&cursor=' + enc(cursor) : ''));
    if (!alive()) return;
    for (const ep of page.items) tbody.append(episodeRow(ep));
    if (!tbody.children.length) tbody.append(h('tr', null, h('td', { colspan: 6, class: 'muted', text: 'No episodes.' })));
    fill(more, page.next_cursor ? h('button', { type: 'button', onclick: () => load(page.next_cursor).catch((e) => fill(more, errorView(e))), text: 'Show more' }) : '');
  };
  await load('');
}

function episodeRow(ep) {
  const facts = h('td');
  if (ep.fact_ids.length) {
    const btn = h('button', { type: 'button', class: 'link', 'aria-expanded': 'false', text: plural(ep.fact_ids.length, 'fact') });
    btn.addEventListener('click', async () => {
      btn.disabled = true;
      const list = h('ul', { class: 'ep-facts' });
      facts.append(list);
      for (const id of ep.fact_ids.slice(0, 50)) {
        try {
          list.append(h('li', null, factLine((await api('GET', '/facts/' + enc(id))).fact)));
        } catch (e) {
          list.append(h('li', { class: 'muted', text: `${id}: ${e instanceof APIError && e.status === 404 ? (e.message.includes('retracted') ? 'retracted' : 'forgotten') : e.message}` }));
        }
      }
      btn.setAttribute('aria-expanded', 'true');
    });
    facts.append(btn);
  } else {
    facts.append(h('span', { class: 'muted', text: 'none' }));
  }
  const x = ep.extraction;
  if (x && ep.status !== 'queued' && ep.status !== 'processing') facts.append(extractionReport(x));
  return h('tr', { class: 'ep' },
    h('td', { text: day(ep.reference_time) }),
    h('td', null, h('span', { class: 'status ' + ep.status, text: ep.status }), ep.error ? h('div', { class: 'error-text', text: ep.error }) : null),
    h('td', { text: String(ep.attempts) }),
    h('td', { text: ep.speaker || '' }),
    h('td', { class: 'content', text: clip(ep.content, 300) }),
    facts);
}

// extractionReport says what extraction made of an episode: the summary
// (why it has no facts, when it has none), then, folded, each dropped fact
// with its reason, the warnings and what the model call cost.
function extractionReport(x) {
  const box = h('div', { class: 'ep-extraction' }, h('div', { class: 'ep-summary', text: x.summary }));
  if (x.skipped) return box;
  const cost = [x.prompt && `prompt ${x.prompt}`, x.mode && `format ${x.mode}`, x.repaired && 'repaired',
    `${plural(x.calls, 'call')}, ${x.prompt_tokens} + ${x.completion_tokens} tokens`].filter(Boolean).join(' · ');
  const details = h('details', null, h('summary', { text: x.dropped.length ? `${x.dropped.length} dropped` : 'details' }),
    h('ul', { class: 'ep-dropped' },
      x.dropped.map((d) => h('li', null, h('span', { class: 'badge', text: d.reason.replaceAll('_', ' ') }), ' ',
        [d.subject, d.predicate, d.object].filter(Boolean).join(' · '),
        d.detail ? h('div', { class: 'muted', text: d.detail }) : null)),
      x.warnings.map((w) => h('li', { class: 'muted', text: 'warning: ' + w }))),
    h('div', { class: 'muted', text: cost }));
  box.append(details);
  return box;
}
