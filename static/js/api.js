// Talking to the server. The server owns the rules: every state, with its legal actions, comes from it.

/** An error the server (or the network) reported, with a message fit to show the player. */
export class ApiError extends Error {
  /**
   * @param {string} message
   * @param {number} status HTTP status, 0 for a network failure
   */
  constructor(message, status) {
    super(message);
    this.name = "ApiError";
    this.status = status;
  }
}

/**
 * Asks the local-play endpoint for the state after `actions`.
 * @param {string} url the endpoint, e.g. "/api/local"
 * @param {string} variant variant id
 * @param {string[]} actions the whole game so far, in action notation
 * @param {number|null} [seed] the seed of a variant with random events (a finished online game's)
 * @param {string|null} [fen] the position text a game from a position started at
 * @returns {Promise<object>} the engine snapshot
 * @throws {ApiError}
 */
export async function fetchLocalState(url, variant, actions, seed = null, fen = null) {
  const request = { variant, actions };
  if (seed !== null && seed !== undefined) request.seed = seed;
  if (fen !== null && fen !== undefined) request.fen = fen;
  let response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify(request),
      credentials: "same-origin",
    });
  } catch (e) {
    throw new ApiError(`The server cannot be reached (${e.message}).`, 0);
  }
  let body = null;
  try {
    body = await response.json();
  } catch {
    // Not JSON: fall through to a generic message.
  }
  if (!response.ok) {
    const message = body && typeof body.error === "string" ? body.error : `The server answered ${response.status}.`;
    throw new ApiError(message, response.status);
  }
  if (!body || typeof body !== "object" || !Array.isArray(body.legal)) {
    throw new ApiError("The server sent a state this page does not understand.", response.status);
  }
  return body;
}
