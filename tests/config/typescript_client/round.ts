// A partner developer's TypeScript: the types openapi-typescript generated from /api/schema/
// (./schema.d.ts) and openapi-fetch, untouched. Compiled with `tsc --strict`, then run with
// node against the service: `node round.js BASE_URL USERNAME PASSWORD TABLE_ID`. It prints one
// JSON object of what it saw; tests/config/test_generated_client.py checks it.
import createClient from "openapi-fetch";
import type { components, paths } from "./schema.js";

type Round = components["schemas"]["Round"];
declare const process: { argv: string[] }; // Node's, without @types/node

const [baseUrl, username, password, tableId] = process.argv.slice(2);
const anonymous = createClient<paths>({ baseUrl });

const signedIn = await anonymous.POST("/api/v1/auth/token/", { body: { username, password } });
if (!signedIn.data) throw new Error(`sign-in: ${JSON.stringify(signedIn.error)}`);
const me = createClient<paths>({ baseUrl, headers: { Authorization: `Token ${signedIn.data.token}` } });

const tables = await me.GET("/api/v1/tables/");
const table = tables.data?.find((t) => t.id === tableId);
const before = (await me.GET("/api/v1/wallet/")).data?.balance;

// No tie_bet: it is optional (0 when left out).
const placed = await me.POST("/api/v1/rounds/", {
  body: { table: tableId, main_bet: 1000 },
  params: { header: { "Idempotency-Key": "ts-1" } },
});
if (!placed.data) throw new Error(`place: ${JSON.stringify(placed.error)}`);
const round: Round = placed.data;
// Nullable fields read as the type or null: nothing more to unwrap.
const undecided: "war" | "surrender" | null = round.decision;
const noWarYet = round.war === null;

const decided = await me.POST("/api/v1/rounds/{round_id}/decision/", {
  params: { path: { round_id: round.id }, header: { "Idempotency-Key": "ts-2" } },
  body: { action: "war" },
});
if (!decided.data) throw new Error(`decide: ${JSON.stringify(decided.error)}`);
const war = decided.data.war;

const page = await me.GET("/api/v1/rounds/", { params: { query: { limit: 10 } } });
const lines = await me.GET("/api/v1/wallet/transactions/", { params: { query: { limit: 10, offset: 0 } } });
const refused = await me.POST("/api/v1/rounds/", {
  body: { table: tableId, main_bet: 50 },
  params: { header: { "Idempotency-Key": "ts-3" } },
});
const signedOut = await me.DELETE("/api/v1/auth/token/");
const afterwards = await me.GET("/api/v1/wallet/");

console.log(
  JSON.stringify({
    table: table?.name ?? null,
    before,
    placed: placed.response.status,
    status: round.status,
    undecided,
    no_war_yet: noWarYet,
    decided: decided.response.status,
    decision: decided.data.decision,
    raise: decided.data.raise,
    war_player_card: war === null ? null : war.player_card,
    listed: page.data?.results.map((r) => r.id) ?? [],
    line_kinds: lines.data?.results.map((line) => line.kind) ?? [],
    refused: refused.response.status,
    refused_code: refused.error?.code ?? null,
    signed_out: signedOut.response.status,
    afterwards: afterwards.response.status,
  }),
);
