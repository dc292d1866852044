'use strict';
// api.js: calls to mtk's public API with the signed-in credential (an API key, or the login
// token of an e-mail and password), and its errors.

const KEY_STORAGE = 'mtk.dashboard.key';
const JWT_STORAGE = 'mtk.dashboard.jwt';

// ApiError is a refused call: the envelope's message, code, details and request id (or the
// {error, message} body of the projects listing), with the HTTP status.
class ApiError extends Error {
  constructor(status, body, requestId) {
    const env = body && typeof body.error === 'object' && body.error ? body.error : null;
    const message = (env && env.message) || (body && body.message) || 'The API answered ' + status + '.';
    super(message);
    this.status = status;
    this.code = env ? env.code : (body && typeof body.error === 'string' ? body.error : '');
    this.details = (env && env.details) || [];
    this.requestId = (env && env.request_id) || requestId || '';
  }
}

// parseExact reads JSON keeping every number as the text the server wrote ("618.10", not
// 618.1), using JSON.parse's source text access; where a browser lacks it, the number's
// shortest text, which reads back to the same value.
function parseExact(text) {
  return JSON.parse(text, (key, value, context) => {
    if (typeof value !== 'number') return value;
    return context && typeof context.source === 'string' ? context.source : String(value);
  });
}

function storedLogin() {
  try {
    return JSON.parse(sessionStorage.getItem(JWT_STORAGE) || 'null');
  } catch (_) {
    return null;
  }
}

const api = {
  key: sessionStorage.getItem(KEY_STORAGE) || '',
  // login is {token, email} after signing in with a password: the token is a JWT, which data
  // routes take only with the workspace it acts in (X-Workspace-Id, the project's).
  login: storedLogin(),

  signedIn() {
    return Boolean(this.key || this.login);
  },
  // who names the credential in use for the top bar: the user's e-mail, or the key's ends.
  who() {
    return this.login ? this.login.email : this.key.slice(0, 13) + '…' + this.key.slice(-4);
  },
  signIn(key) {
    this.signOut();
    this.key = key;
    sessionStorage.setItem(KEY_STORAGE, key);
  },
  // signInWithPassword exchanges an e-mail and password for a login token (POST /v3/auth/login).
  async signInWithPassword(email, password) {
    this.signOut();
    const res = await this.call('POST', '/v3/auth/login', { email, password });
    this.login = { token: res.token, email: res.user.email };
    sessionStorage.setItem(JWT_STORAGE, JSON.stringify(this.login));
  },
  // signOut forgets the credential; a login token is also revoked (POST /v3/auth/logout), so
  // a copy of it is refused from then on. The page does not wait for that answer.
  signOut() {
    if (this.login) this.call('POST', '/v3/auth/logout').catch(() => {});
    this.key = '';
    this.login = null;
    sessionStorage.removeItem(KEY_STORAGE);
    sessionStorage.removeItem(JWT_STORAGE);
  },

  async call(method, path, body, signal, workspace) {
    const headers = { Accept: 'application/json' };
    const bearer = this.login ? this.login.token : this.key;
    if (bearer) headers.Authorization = 'Bearer ' + bearer;
    if (this.login && workspace) headers['X-Workspace-Id'] = workspace;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    let res;
    try {
      res = await fetch(path, {
        method, headers, signal, cache: 'no-store', credentials: 'omit',
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (err) {
      if (err.name === 'AbortError') throw err;
      throw new ApiError(0, { message: 'The API could not be reached: ' + err.message });
    }
    const text = await res.text();
    let data = null;
    try {
      data = text ? parseExact(text) : null;
    } catch (_) {
      data = null;
    }
    if (!res.ok) throw new ApiError(res.status, data, res.headers.get('X-Request-Id'));
    if (res.status === 204) return null;
    if (data === null) throw new ApiError(res.status, { message: 'The API answered something that is not JSON.' });
    return data;
  },

  projects(signal) {
    return this.call('GET', '/v3/projects', undefined, signal);
  },
  // fields is GET /v3/fields (what queries take) in the given workspace.
  fields(workspace) {
    return this.call('GET', '/v3/fields', undefined, undefined, workspace);
  },
  // query asks POST /v3/query in the workspace of the body's project.
  query(body, signal, workspace) {
    return this.call('POST', '/v3/query', body, signal, workspace);
  },
};
