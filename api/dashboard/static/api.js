'use strict';
// api.js: calls to mtk's public API with the signed-in key, and its errors.

const KEY_STORAGE = 'mtk.dashboard.key';

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

const api = {
  key: sessionStorage.getItem(KEY_STORAGE) || '',

  signIn(key) {
    this.key = key;
    sessionStorage.setItem(KEY_STORAGE, key);
  },
  signOut() {
    this.key = '';
    sessionStorage.removeItem(KEY_STORAGE);
  },

  async call(method, path, body, signal) {
    const headers = { Authorization: 'Bearer ' + this.key, Accept: 'application/json' };
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
    if (data === null) throw new ApiError(res.status, { message: 'The API answered something that is not JSON.' });
    return data;
  },

  projects(signal) {
    return this.call('GET', '/v3/projects', undefined, signal);
  },
  query(body, signal) {
    return this.call('POST', '/v3/query', body, signal);
  },
};
