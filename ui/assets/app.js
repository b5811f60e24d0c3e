// The web view's shell: sign-in, the scope picker and the router that
// draws the page a URL names.
import { h, fill, api, auth, errorView, APIError } from './core.js';
import { entityPage } from './entity.js';
import { homePage, askPage, forgetPage, episodesPage } from './pages.js';

let session = null; // the answer of GET /v1/session
let generation = 0; // a newer route makes older async renders stale

const routes = [
  [/^\/ui\/$/, homePage],
  [/^\/ui\/ask$/, askPage],
  [/^\/ui\/forget$/, forgetPage],
  [/^\/ui\/episodes$/, episodesPage],
  [/^\/ui\/entity\/(.+)$/, entityPage],
];

export function navigate(url, replace) {
  if (replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  route();
}

async function route() {
  const gen = ++generation;
  const alive = () => gen === generation;
  const main = document.getElementById('main');
  markNav();
  if (!session) {
    try {
      session = await api('GET', '/session');
    } catch (e) {
      if (!alive()) return;
      if (e instanceof APIError && (e.status === 401 || e.status === 403)) {
        signIn(main, e);
      } else {
        fill(main, errorView(e, 'Could not start'));
      }
      return;
    }
    if (auth.scope && !session.scopes.includes(auth.scope)) {
      auth.scope = '';
      session = await api('GET', '/session');
    }
  }
  if (!alive()) return;
  showWho();
  const path = location.pathname;
  const params = new URLSearchParams(location.search);
  for (const [re, page] of routes) {
    const m = path.match(re);
    if (!m) continue;
    fill(main);
    try {
      await page(main, { arg: m[1] ? decodeURIComponent(m[1]) : '', params, alive, navigate, session });
    } catch (e) {
      if (!alive()) return;
      if (e instanceof APIError && e.status === 401) {
        session = null;
        signIn(main, e);
        return;
      }
      main.append(errorView(e));
    }
    return;
  }
  fill(main, h('h1', { text: 'Not found' }), h('p', null, 'No page here. ', h('a', { href: '/ui/', text: 'Search memory' })));
}

function markNav() {
  for (const a of document.querySelectorAll('header nav a')) {
    const here = a.getAttribute('href') === location.pathname;
    if (here) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
}

// signIn asks for an API key; it is kept in sessionStorage only.
function signIn(main, why) {
  document.title = 'Sign in · graphmem';
  document.getElementById('who').replaceChildren();
  const input = h('input', { id: 'key', type: 'password', name: 'key', autocomplete: 'off', required: true, spellcheck: 'false' });
  const problem = h('div', { id: 'signin-problem' });
  if (auth.key && why) problem.append(errorView(why, 'That key was refused'));
  const form = h('form', { class: 'card signin', method: 'post', onsubmit: async (ev) => {
    ev.preventDefault();
    auth.key = input.value.trim();
    auth.scope = '';
    session = null;
    fill(problem);
    try {
      session = await api('GET', '/session');
    } catch (e) {
      auth.key = '';
      fill(problem, errorView(e, 'That key was refused'));
      input.focus();
      return;
    }
    route();
  } },
  h('h1', { text: 'Sign in' }),
  h('p', { text: 'This server needs an API key. It stays in this browser tab (sessionStorage) and is sent only to this server, as a Bearer header.' }),
  h('label', { for: 'key', text: 'API key' }), input,
  h('button', { type: 'submit', text: 'Sign in' }),
  problem);
  fill(main, form);
  input.focus();
}

// showWho shows the scope picker, and sign-out when a key is in use.
function showWho() {
  const who = document.getElementById('who');
  const select = h('select', { id: 'scope', 'aria-label': 'Scope', onchange: () => {
    auth.scope = select.value;
    session = { ...session, scope: select.value };
    route();
  } }, session.scopes.map((sc) => h('option', { value: sc, selected: sc === session.scope, text: sc })));
  const parts = [h('label', { for: 'scope', class: 'muted', text: 'Scope' }), select];
  if (session.development_mode) {
    parts.push(h('span', { class: 'badge', title: 'No API keys are configured on this server', text: 'development mode' }));
  } else {
    parts.push(h('button', { type: 'button', class: 'link', onclick: () => {
      auth.key = '';
      auth.scope = '';
      session = null;
      route();
    }, text: 'Sign out' }));
  }
  fill(who, ...parts);
}

// Links inside the view change the page without reloading it.
document.addEventListener('click', (ev) => {
  const a = ev.target.closest && ev.target.closest('a');
  if (!a || ev.defaultPrevented || ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.altKey || a.target) return;
  const url = new URL(a.href, location.href);
  if (url.origin !== location.origin || !url.pathname.startsWith('/ui/') || url.pathname.startsWith('/ui/assets/')) return;
  ev.preventDefault();
  navigate(url.pathname + url.search + url.hash);
  document.getElementById('main').focus({ preventScroll: true });
});
window.addEventListener('popstate', route);
route();
