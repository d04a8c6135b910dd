// The public HTTP API, as any client calls it: JSON in, JSON or problem+json out, in the
// page's language (Accept-Language: problem details and the history's words).

import { languageHeaders } from "./i18n.js";
import { S } from "./strings.js";

/** An error answer: HTTP status and the problem document (code, detail, rule, ...). */
export class ApiError extends Error {
  constructor(status, problem) {
    super(problem.detail || problem.title || `HTTP ${status}`);
    this.status = status;
    this.problem = problem;
  }
}

export function authHeaders(token) {
  return token ? { Authorization: `Bearer ${token}` } : {};
}

/** Call the API; resolves to the JSON answer, rejects with an ApiError. */
export async function api(path, { token, method = "GET", body, headers = {} } = {}) {
  const init = { method, headers: { Accept: "application/json", ...languageHeaders(),
                                    ...authHeaders(token), ...headers },
                 cache: "no-store" };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers["Content-Type"] = "application/json";
  }
  let resp;
  try {
    resp = await fetch(path, init);
  } catch (err) {
    throw new ApiError(0, { code: "network", detail: S.unreachable });
  }
  const text = await resp.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = { detail: text.slice(0, 200) };
  }
  if (!resp.ok) throw new ApiError(resp.status, data || {});
  return data;
}
