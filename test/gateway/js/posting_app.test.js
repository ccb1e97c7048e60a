#!/usr/bin/env node
// test/gateway/js/posting_app.test.js: the posting app (test/regress/sql/dynamodb_posting.sql, the
// mission's worked example) through singletable-gateway with the AWS SDK for JavaScript v3
// DocumentClient, native JS values in and out, against the extension's real
// singletable.dynamodb. It proves that an unmodified DocumentClient application runs on
// PostgreSQL: every access pattern is checked against the exact items, and the SDK's own
// SigV4 signing, error classes, paginator and retries work with the gateway's answers (a
// backend killed under a request in flight costs that request one retry, an idle one nothing).
//
// Run by test/gateway/run.sh (after `npm ci` in this directory), which sets GATEWAY, PGHOST,
// PGPORT and PATH (psql), has run CREATE EXTENSION singletable and created the role
// gw_sdk_reader (SELECT on the tables of schema public). The test starts its own gateway with
// a credentials file, creates the table posting_js and drops it at the end. One TAP line per
// check ("ok N - js: ..." / "not ok N - js: ..." then "# why"), a summary line, exit 1 on
// any failure.
"use strict";

const assert = require("node:assert/strict");
const { spawn, execFileSync } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

const { DynamoDBClient, CreateTableCommand, DeleteTableCommand, DescribeTableCommand, ListTablesCommand } =
	require("@aws-sdk/client-dynamodb");
const {
	DynamoDBDocumentClient, BatchGetCommand, BatchWriteCommand, DeleteCommand, GetCommand, PutCommand,
	QueryCommand, ScanCommand, TransactWriteCommand, UpdateCommand, paginateQuery,
} = require("@aws-sdk/lib-dynamodb");

const TABLE = "posting_js";
const APP = "gw-js-test";	// the application_name of the gateway's connections
let gateway = null;	// the child process, killed at exit whatever happened
process.on("exit", () => {
	if (gateway && gateway.exitCode === null && gateway.signalCode === null)
		gateway.kill("SIGKILL");
});
let passed = 0;
let failed = 0;

function report(ok, name, why) {
	const n = passed + failed + 1;
	if (ok) {
		passed++;
		console.log(`ok ${n} - js: ${name}`);
	} else {
		failed++;
		console.log(`not ok ${n} - js: ${name}`);
		console.log("# " + String(why).replace(/\n/g, "\n# "));
	}
}

// One check: fn's result (awaited) must deep-equal expected.
async function step(name, fn, expected) {
	try {
		const got = await fn();
		assert.deepStrictEqual(got, expected);
		report(true, name);
	} catch (e) {
		report(false, name, e && e.message ? e.message : e);
	}
}

// The exception name, HTTP status and the error object of a call that must fail.
async function failure(fn) {
	try {
		await fn();
	} catch (e) {
		return { name: e.name, status: e.$metadata ? e.$metadata.httpStatusCode : undefined, error: e };
	}
	return { name: "no error", status: 200, error: null };
}

const nameStatus = async (fn) => {
	const f = await failure(fn);
	return [f.name, f.status];
};

function psql(sql) {
	execFileSync("psql", ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-c", sql], { stdio: ["ignore", "ignore", "inherit"] });
}

// The value of a one-row, one-column query.
function psqlValue(sql) {
	return execFileSync("psql", ["-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", sql],
		{ stdio: ["ignore", "pipe", "inherit"] }).toString().trim();
}

// Polls sql until it returns "t" (at most 10 s).
async function until(sql, what) {
	for (let i = 0; i < 200; i++) {
		if (psqlValue(sql) === "t")
			return;
		await sleep(50);
	}
	throw new Error("timed out waiting for " + what);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Starts the gateway on a free port with a credentials file; resolves to {proc, port, logPath}.
async function startGateway(work) {
	const creds = path.join(work, "credentials");
	fs.writeFileSync(creds, [
		"AKIDJSADMIN   js-admin-secret   -",
		"AKIDJSREADER  js-reader-secret  gw_sdk_reader",
		"AKIDJSU1001   js-u1001-secret   gw_js_u_1001",
		"",
	].join("\n"), { mode: 0o600 });
	const logPath = path.join(work, "gateway.log");
	const log = fs.openSync(logPath, "w");
	const proc = spawn(process.env.GATEWAY, ["--listen", "127.0.0.1:0", "--dsn", `user=postgres application_name=${APP}`,
		"--credentials", creds, "--pool", "2"], { stdio: ["ignore", log, log] });
	gateway = proc;
	for (let i = 0; i < 100; i++) {
		const m = /listening on 127\.0\.0\.1 port (\d+)/.exec(fs.readFileSync(logPath, "utf8"));
		if (m)
			return { proc, port: Number(m[1]), logPath };
		if (proc.exitCode !== null)
			break;
		await sleep(50);
	}
	throw new Error("the gateway did not start:\n" + fs.readFileSync(logPath, "utf8"));
}

// The items of the posting app, as native JS values (a Set is a string set, a Uint8Array a B).
const b64 = "iVBORw0KGgo=";
const ITEMS = [
	{ pk: "USER#u_1001", sk: "PROFILE", name: "Aiko", plan: "pro" },
	{ pk: "USER#u_1001", sk: "POST#p_0017", title: "Single-table on Postgres", status: "approved",
		publishAt: "2026-06-23T09:00:00Z", gsi1pk: "STATUS#approved", gsi1sk: "2026-06-23T09:00:00Z" },
	{ pk: "USER#u_1001", sk: "POST#p_0018", title: "Key overloading", status: "draft" },
	{ pk: "USER#u_1001", sk: "POST#p_0019", title: "begins_with is a range", status: "draft" },
	{ pk: "USER#u_1001", sk: "LIBRARY#HASHTAG#postgres", tags: new Set(["#postgres", "#dynamodb"]) },
	{ pk: "USER#u_1001", sk: "INTEG#GOOGLE", account: "aiko@example.com" },
	{ pk: "USER#u_1001", sk: "INTEG#X#aiko_dev", handle: "aiko_dev" },
	{ pk: "USER#u_1001", sk: "INTEG#X#aiko_news", handle: "aiko_news" },
	{ pk: "USER#u_1001", sk: "SOURCE#FOLDER#fld_01", name: "Campaign assets" },
	{ pk: "USER#u_1001", sk: "ANALYTICS#p_0017", impressions: 4210, likes: 233 },
	{ pk: "USER#u_1002", sk: "PROFILE", name: "Ben", plan: "free" },
	{ pk: "USER#u_1002", sk: "POST#p_0101", title: "Launch checklist", status: "approved",
		publishAt: "2026-06-24T07:30:00Z", gsi1pk: "STATUS#approved", gsi1sk: "2026-06-24T07:30:00Z" },
	{ pk: "POST#p_0017", sk: "SOURCE#f_01", file: "cover.png", bytes: Uint8Array.from(Buffer.from(b64, "base64")) },
	{ pk: "POST#p_0017", sk: "SOURCE#f_02", file: "draft.md" },
	{ pk: "POST#p_0017", sk: "METRICS#2026-06-23T10:00Z", views: 120, expiresAt: 4102444800 },
	{ pk: "POST#p_0017", sk: "METRICS#2026-06-23T11:00Z", views: 310, expiresAt: 4102444800 },
	{ pk: "POST#p_0017", sk: "METRICS#2026-06-23T12:00Z", views: 540, expiresAt: 4102444800 },
];
const U1001 = ITEMS.filter((i) => i.pk === "USER#u_1001").map((i) => i.sk).sort();

// A Query of the table's pk/sk (kc: the sk condition, "" for none) with extra parameters.
function q(pk, kc, values, extra) {
	return {
		TableName: TABLE, KeyConditionExpression: "pk = :pk" + (kc ? " AND " + kc : ""),
		ExpressionAttributeValues: { ":pk": pk, ...values }, ...extra,
	};
}

async function main() {
	const work = fs.mkdtempSync(path.join(os.tmpdir(), "gateway-js."));
	let gw;
	try {
		gw = await startGateway(work);
	} catch (e) {
		report(false, "the gateway starts", e.message);
		return work;
	}
	const endpoint = `http://127.0.0.1:${gw.port}`;
	// What an application writes (README "The DynamoDB endpoint"): endpoint, any region, the
	// key of the credentials file. maxAttempts 1: a failure must show, not be retried away.
	const clientFor = (accessKeyId, secretAccessKey) => new DynamoDBClient({
		endpoint, region: "us-east-1", credentials: { accessKeyId, secretAccessKey }, maxAttempts: 1,
	});
	const ddb = clientFor("AKIDJSADMIN", "js-admin-secret");
	const doc = DynamoDBDocumentClient.from(ddb);

	try {
		await ddb.send(new DeleteTableCommand({ TableName: TABLE }));	// a leftover of an earlier run
	} catch (e) {
		if (e.name !== "ResourceNotFoundException")
			throw e;
	}

	// --- the table and its items
	await step("CreateTable with GSI1 (PAY_PER_REQUEST)", async () => {
		const r = await ddb.send(new CreateTableCommand({
			TableName: TABLE, BillingMode: "PAY_PER_REQUEST",
			AttributeDefinitions: ["pk", "sk", "gsi1pk", "gsi1sk"].map((n) => ({ AttributeName: n, AttributeType: "S" })),
			KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }, { AttributeName: "sk", KeyType: "RANGE" }],
			GlobalSecondaryIndexes: [{
				IndexName: "GSI1", Projection: { ProjectionType: "ALL" },
				KeySchema: [{ AttributeName: "gsi1pk", KeyType: "HASH" }, { AttributeName: "gsi1sk", KeyType: "RANGE" }],
			}],
		}));
		return [r.TableDescription.TableName, r.TableDescription.GlobalSecondaryIndexes.map((g) => g.IndexName)];
	}, [TABLE, ["GSI1"]]);
	await step("DescribeTable: ACTIVE, key schema", async () => {
		const t = (await ddb.send(new DescribeTableCommand({ TableName: TABLE }))).Table;
		return [t.TableStatus, t.KeySchema];
	}, ["ACTIVE", [{ AttributeName: "pk", KeyType: "HASH" }, { AttributeName: "sk", KeyType: "RANGE" }]]);
	await step("BatchWrite: the 17 items in one request, none unprocessed", async () => {
		const r = await doc.send(new BatchWriteCommand({
			RequestItems: { [TABLE]: ITEMS.map((Item) => ({ PutRequest: { Item } })) },
		}));
		return r.UnprocessedItems;
	}, {});

	// --- the access patterns
	await step("Query begins_with: a user's posts (projection, #name)", async () => (await doc.send(new QueryCommand(
		q("USER#u_1001", "begins_with(sk, :p)", { ":p": "POST#" },
			{ ProjectionExpression: "sk, title, #s", ExpressionAttributeNames: { "#s": "status" } })))).Items, [
		{ sk: "POST#p_0017", title: "Single-table on Postgres", status: "approved" },
		{ sk: "POST#p_0018", title: "Key overloading", status: "draft" },
		{ sk: "POST#p_0019", title: "begins_with is a range", status: "draft" },
	]);
	await step("Query begins_with: the library (a string set comes back as a Set)", async () => (await doc.send(
		new QueryCommand(q("USER#u_1001", "begins_with(sk, :p)", { ":p": "LIBRARY#" })))).Items,
	[{ pk: "USER#u_1001", sk: "LIBRARY#HASHTAG#postgres", tags: new Set(["#dynamodb", "#postgres"]) }]);
	await step("Query begins_with: the X integrations", async () => (await doc.send(new QueryCommand(
		q("USER#u_1001", "begins_with(sk, :p)", { ":p": "INTEG#X#" }, { ProjectionExpression: "handle" })))).Items,
	[{ handle: "aiko_dev" }, { handle: "aiko_news" }]);
	await step("Query begins_with: the folders", async () => (await doc.send(new QueryCommand(
		q("USER#u_1001", "begins_with(sk, :p)", { ":p": "SOURCE#FOLDER#" },
			{ ProjectionExpression: "sk, #n", ExpressionAttributeNames: { "#n": "name" } })))).Items,
	[{ sk: "SOURCE#FOLDER#fld_01", name: "Campaign assets" }]);
	await step("GetItem: a profile", async () => (await doc.send(new GetCommand({
		TableName: TABLE, Key: { pk: "USER#u_1002", sk: "PROFILE" } }))).Item,
	{ pk: "USER#u_1002", sk: "PROFILE", name: "Ben", plan: "free" });
	await step("GetItem of a missing item: no Item", async () => "Item" in (await doc.send(new GetCommand({
		TableName: TABLE, Key: { pk: "USER#u_1002", sk: "NOPE" } }))), false);
	await step("Query sk = and Select COUNT", async () => {
		const r = await doc.send(new QueryCommand(q("USER#u_1002", "sk = :p", { ":p": "PROFILE" }, { Select: "COUNT" })));
		return [r.Count, r.ScannedCount, r.Items];
	}, [1, 1, undefined]);
	await step("Query begins_with: a post's sources (a B attribute comes back as bytes)", async () => (await doc.send(
		new QueryCommand(q("POST#p_0017", "begins_with(sk, :s)", { ":s": "SOURCE#" })))).Items.map(
		(i) => ({ ...i, ...(i.bytes ? { bytes: Buffer.from(i.bytes).toString("base64") } : {}) })), [
		{ pk: "POST#p_0017", sk: "SOURCE#f_01", file: "cover.png", bytes: b64 },
		{ pk: "POST#p_0017", sk: "SOURCE#f_02", file: "draft.md" },
	]);
	const metrics = q("POST#p_0017", "begins_with(sk, :m)", { ":m": "METRICS#" },
		{ ScanIndexForward: false, Limit: 2, ProjectionExpression: "sk, #v", ExpressionAttributeNames: { "#v": "views" } });
	await step("Query ScanIndexForward false, Limit 2, ExclusiveStartKey paging to the end", async () => {
		const pages = [];
		let start;
		do {
			const r = await doc.send(new QueryCommand({ ...metrics, ExclusiveStartKey: start }));
			pages.push({ items: r.Items, last: r.LastEvaluatedKey });
			start = r.LastEvaluatedKey;
		} while (start && pages.length < 10);
		return pages;
	}, [
		{ items: [{ sk: "METRICS#2026-06-23T12:00Z", views: 540 }, { sk: "METRICS#2026-06-23T11:00Z", views: 310 }],
			last: { pk: "POST#p_0017", sk: "METRICS#2026-06-23T11:00Z" } },
		{ items: [{ sk: "METRICS#2026-06-23T10:00Z", views: 120 }], last: undefined },
	]);
	await step("paginateQuery (the SDK's paginator, pageSize 1): every metric, newest first", async () => {
		const sks = [];
		const { Limit, ...params } = metrics;	// eslint-disable-line no-unused-vars
		for await (const page of paginateQuery({ client: doc, pageSize: 1 }, params))
			sks.push(page.Items.map((i) => i.sk));
		return sks;
	}, [["METRICS#2026-06-23T12:00Z"], ["METRICS#2026-06-23T11:00Z"], ["METRICS#2026-06-23T10:00Z"], []]);
	await step("Query BETWEEN: metrics in a time window", async () => (await doc.send(new QueryCommand(
		q("POST#p_0017", "sk BETWEEN :a AND :b", { ":a": "METRICS#2026-06-23T10:30Z", ":b": "METRICS#2026-06-23T11:59Z" },
			{ ProjectionExpression: "sk" })))).Items, [{ sk: "METRICS#2026-06-23T11:00Z" }]);
	await step("Query pk only: the whole user collection, in sort key order", async () => (await doc.send(
		new QueryCommand(q("USER#u_1001", "", {})))).Items.map((i) => i.sk), U1001);
	await step("Query GSI1: the scheduler, approved posts by publish time", async () => (await doc.send(new QueryCommand({
		TableName: TABLE, IndexName: "GSI1", KeyConditionExpression: "gsi1pk = :s",
		ExpressionAttributeValues: { ":s": "STATUS#approved" }, ProjectionExpression: "gsi1sk, pk, sk, title",
	}))).Items, [
		{ pk: "USER#u_1001", sk: "POST#p_0017", title: "Single-table on Postgres", gsi1sk: "2026-06-23T09:00:00Z" },
		{ pk: "USER#u_1002", sk: "POST#p_0101", title: "Launch checklist", gsi1sk: "2026-06-24T07:30:00Z" },
	]);

	// --- writes: the conditional approval, the counter, ReturnValues
	const approve = {
		TableName: TABLE, Key: { pk: "USER#u_1001", sk: "POST#p_0019" },
		UpdateExpression: "SET #s = :approved, publishAt = :at, gsi1pk = :gpk, gsi1sk = :at",
		ConditionExpression: "#s = :draft", ExpressionAttributeNames: { "#s": "status" },
		ExpressionAttributeValues: { ":approved": "approved", ":draft": "draft", ":at": "2026-06-26T12:30:00Z",
			":gpk": "STATUS#approved" },
	};
	await step("UpdateItem: the conditional approval succeeds once (UPDATED_NEW)", async () => (await doc.send(
		new UpdateCommand({ ...approve, ReturnValues: "UPDATED_NEW" }))).Attributes, {
		status: "approved", publishAt: "2026-06-26T12:30:00Z", gsi1pk: "STATUS#approved", gsi1sk: "2026-06-26T12:30:00Z",
	});
	await step("UpdateItem: the approval again is ConditionalCheckFailedException, ALL_OLD gives the item", async () => {
		const f = await failure(() => doc.send(new UpdateCommand({ ...approve,
			ReturnValuesOnConditionCheckFailure: "ALL_OLD" })));
		return [f.name, f.status, f.error && f.error.Item];
	}, ["ConditionalCheckFailedException", 400, {
		pk: { S: "USER#u_1001" }, sk: { S: "POST#p_0019" }, title: { S: "begins_with is a range" },
		status: { S: "approved" }, publishAt: { S: "2026-06-26T12:30:00Z" },
		gsi1pk: { S: "STATUS#approved" }, gsi1sk: { S: "2026-06-26T12:30:00Z" },
	}]);
	await step("Query GSI1 with a range: the approved post joined the scheduler", async () => (await doc.send(
		new QueryCommand({
			TableName: TABLE, IndexName: "GSI1", KeyConditionExpression: "gsi1pk = :s AND gsi1sk > :t",
			ExpressionAttributeValues: { ":s": "STATUS#approved", ":t": "2026-06-24" },
		}))).Items.map((i) => i.sk), ["POST#p_0101", "POST#p_0019"]);
	const like = { TableName: TABLE, Key: { pk: "USER#u_1001", sk: "ANALYTICS#p_0017" },
		UpdateExpression: "ADD likes :one", ExpressionAttributeValues: { ":one": 1 }, ReturnValues: "UPDATED_NEW" };
	await step("UpdateItem ADD: the counter, twice (native numbers)", async () => [
		(await doc.send(new UpdateCommand(like))).Attributes,
		(await doc.send(new UpdateCommand(like))).Attributes,
	], [{ likes: 234 }, { likes: 235 }]);
	await step("UpdateItem ADD with ReturnConsumedCapacity TOTAL", async () => {
		const r = await doc.send(new UpdateCommand({ ...like, ReturnConsumedCapacity: "TOTAL" }));
		return [r.Attributes, r.ConsumedCapacity];
	}, [{ likes: 236 }, { TableName: TABLE, CapacityUnits: 1 }]);
	await step("UpdateItem ReturnValues UPDATED_OLD and ALL_NEW", async () => [
		(await doc.send(new UpdateCommand({ TableName: TABLE, Key: { pk: "USER#u_1002", sk: "PROFILE" },
			UpdateExpression: "SET #p = :p", ExpressionAttributeNames: { "#p": "plan" },
			ExpressionAttributeValues: { ":p": "pro" }, ReturnValues: "UPDATED_OLD" }))).Attributes,
		(await doc.send(new UpdateCommand({ TableName: TABLE, Key: { pk: "USER#u_1002", sk: "PROFILE" },
			UpdateExpression: "SET seats = :n REMOVE #p", ExpressionAttributeNames: { "#p": "plan" },
			ExpressionAttributeValues: { ":n": 3 }, ReturnValues: "ALL_NEW" }))).Attributes,
	], [{ plan: "free" }, { pk: "USER#u_1002", sk: "PROFILE", name: "Ben", seats: 3 }]);
	await step("PutItem ReturnValues ALL_OLD replaces an item", async () => (await doc.send(new PutCommand({
		TableName: TABLE, Item: { pk: "USER#u_1002", sk: "PROFILE", name: "Ben", plan: "free" },
		ReturnValues: "ALL_OLD" }))).Attributes, { pk: "USER#u_1002", sk: "PROFILE", name: "Ben", seats: 3 });

	// --- a transaction, then the same one cancelled
	const newPost = (token) => new TransactWriteCommand({
		...(token ? { ClientRequestToken: token } : {}),
		TransactItems: [
			{ Put: { TableName: TABLE, ConditionExpression: "attribute_not_exists(pk)",
				Item: { pk: "USER#u_1002", sk: "POST#p_0102", title: "Hello", status: "draft" } } },
			{ Update: { TableName: TABLE, Key: { pk: "USER#u_1002", sk: "PROFILE" },
				UpdateExpression: "ADD posts :one", ExpressionAttributeValues: { ":one": 1 } } },
		],
	});
	const posts = async () => (await doc.send(new GetCommand({ TableName: TABLE,
		Key: { pk: "USER#u_1002", sk: "PROFILE" }, ProjectionExpression: "posts" }))).Item;
	// Tokens outlive the table (DynamoDB's are the account's, for 10 minutes): one per run.
	const token = `js-post-${process.pid}-${Date.now()}`;
	await step("TransactWrite: a new post and the post counter, applied together", async () => {
		const r = await doc.send(newPost(token));
		return [r.$metadata.httpStatusCode, await posts()];
	}, [200, { posts: 1 }]);
	await step("TransactWrite: the same ClientRequestToken again is idempotent", async () => {
		const r = await doc.send(newPost(token));
		return [r.$metadata.httpStatusCode, await posts()];
	}, [200, { posts: 1 }]);
	await step("TransactWrite cancelled: TransactionCanceledException, CancellationReasons in order, nothing written",
		async () => {
			const f = await failure(() => doc.send(newPost()));
			return [f.name, f.status, f.error && (f.error.CancellationReasons || []).map((r) => r.Code), await posts()];
		}, ["TransactionCanceledException", 400, ["ConditionalCheckFailed", "None"], { posts: 1 }]);

	// --- BatchGet, Scan with a filter
	await step("BatchGet: both profiles and a missing key", async () => {
		const r = await doc.send(new BatchGetCommand({ RequestItems: { [TABLE]: {
			Keys: [{ pk: "USER#u_1001", sk: "PROFILE" }, { pk: "USER#u_1002", sk: "PROFILE" }, { pk: "USER#u_9", sk: "PROFILE" }],
			ProjectionExpression: "pk, #n, posts", ExpressionAttributeNames: { "#n": "name" } } } }));
		return [r.Responses[TABLE].sort((a, b) => a.pk.localeCompare(b.pk)), r.UnprocessedKeys];
	}, [[{ pk: "USER#u_1001", name: "Aiko" }, { pk: "USER#u_1002", name: "Ben", posts: 1 }], {}]);
	await step("Scan with a FilterExpression: the drafts (Count filtered, ScannedCount all 18 items)", async () => {
		const r = await doc.send(new ScanCommand({ TableName: TABLE, FilterExpression: "#s = :d",
			ExpressionAttributeNames: { "#s": "status" }, ExpressionAttributeValues: { ":d": "draft" },
			ProjectionExpression: "pk, sk" }));
		return [r.Items.map((i) => i.pk + " " + i.sk).sort(), r.Count, r.ScannedCount];
	}, [["USER#u_1001 POST#p_0018", "USER#u_1002 POST#p_0102"], 2, 18]);
	await step("Scan with a filter on a number and Select COUNT", async () => {
		const r = await doc.send(new ScanCommand({ TableName: TABLE, FilterExpression: "#v > :v",
			ExpressionAttributeNames: { "#v": "views" }, ExpressionAttributeValues: { ":v": 200 }, Select: "COUNT" }));
		return [r.Count, r.ScannedCount];
	}, [2, 18]);

	// --- SigV4 and grants through the SDK
	await step("SigV4: the right key and secret are accepted (ListTables)", async () =>
		(await clientFor("AKIDJSADMIN", "js-admin-secret").send(new ListTablesCommand({}))).TableNames.includes(TABLE), true);
	await step("SigV4: a wrong secret is InvalidSignatureException", () => nameStatus(() =>
		clientFor("AKIDJSADMIN", "not-the-secret").send(new ListTablesCommand({}))), ["InvalidSignatureException", 400]);
	await step("SigV4: an unknown access key is UnrecognizedClientException", () => nameStatus(() =>
		clientFor("AKIDNOBODY", "js-admin-secret").send(new ListTablesCommand({}))), ["UnrecognizedClientException", 400]);
	const reader = DynamoDBDocumentClient.from(clientFor("AKIDJSREADER", "js-reader-secret"));
	await step("a key whose role has SELECT only reads", async () => (await reader.send(new GetCommand({
		TableName: TABLE, Key: { pk: "USER#u_1001", sk: "PROFILE" } }))).Item.name, "Aiko");
	await step("a key whose role lacks the INSERT grant: PutItem is AccessDeniedException", () => nameStatus(() =>
		reader.send(new PutCommand({ TableName: TABLE, Item: { pk: "USER#u_1001", sk: "X" } }))),
	["AccessDeniedException", 400]);
	await step("... and UpdateItem, DeleteItem too; nothing changed", async () => [
		await nameStatus(() => reader.send(new UpdateCommand({ ...like, ReturnValues: "NONE" }))),
		await nameStatus(() => reader.send(new DeleteCommand({ TableName: TABLE, Key: { pk: "USER#u_1001", sk: "PROFILE" } }))),
		(await doc.send(new GetCommand({ TableName: TABLE, Key: like.Key }))).Item.likes,
	], [["AccessDeniedException", 400], ["AccessDeniedException", 400], 236]);

	// Killed backends. An idle pooled connection that died is replaced before its next use: no
	// request fails, even without the SDK's retries.
	await step("killed idle connections are replaced: 4 parallel requests succeed with no retry", async () => {
		await Promise.all([0, 1].map(() => doc.send(new GetCommand({ TableName: TABLE, Key: like.Key }))));
		const killed = Number(psqlValue(`SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
			WHERE application_name = '${APP}'`));
		await until(`SELECT count(*) = 0 FROM pg_stat_activity WHERE application_name = '${APP}'`, "the backends to exit");
		const got = await Promise.all([0, 1, 2, 3].map(() => doc.send(new GetCommand({ TableName: TABLE,
			Key: { pk: "USER#u_1001", sk: "PROFILE" }, ProjectionExpression: "#n", ExpressionAttributeNames: { "#n": "name" } }))));
		const conns = Number(psqlValue(`SELECT count(*) FROM pg_stat_activity WHERE application_name = '${APP}'`));
		return [killed >= 1, got.map((r) => r.Item.name), conns >= 1 && conns <= 2];
	}, [true, ["Aiko", "Aiko", "Aiko", "Aiko"], true]);
	// A request in flight when its backend dies: held on a row lock of another session, its
	// backend is terminated while it waits; the gateway answers 500 InternalServerError (which
	// the SDKs retry). The locking session is ended right after, so the retry finds no lock.
	async function killInFlight(client) {
		const locker = spawn("psql", ["-X", "-q", "-c", `BEGIN; SELECT 1 FROM public.${TABLE}
			WHERE pk = 'USER#u_1001' AND sk = 'ANALYTICS#p_0017' FOR UPDATE; SELECT pg_sleep(30); COMMIT;`],
		{ stdio: "ignore", env: { ...process.env, PGAPPNAME: "gw-js-locker" } });
		const ended = new Promise((resolve) => locker.on("exit", resolve));
		try {
			await until(`SELECT count(*) = 1 FROM pg_stat_activity WHERE application_name = 'gw-js-locker'
				AND wait_event = 'PgSleep'`, "the lock");
			const call = client.send(new UpdateCommand(like)).then((r) => [r.Attributes, r.$metadata.attempts], (e) =>
				[e.name, e.$metadata && e.$metadata.httpStatusCode]);
			await until(`SELECT count(*) = 1 FROM pg_stat_activity WHERE application_name = '${APP}'
				AND wait_event_type = 'Lock'`, "the UpdateItem to wait for the lock");
			psqlValue(`SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = '${APP}'
				AND wait_event_type = 'Lock'`);
			await until(`SELECT count(*) = 0 FROM pg_stat_activity WHERE application_name = '${APP}'
				AND wait_event_type = 'Lock'`, "the backend to exit");
			psqlValue("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = 'gw-js-locker'");
			return await call;
		} finally {
			locker.kill("SIGKILL");
			await ended;
		}
	}
	const likes = async () => (await doc.send(new GetCommand({ TableName: TABLE, Key: like.Key }))).Item.likes;
	await step("a backend killed under a request in flight: that request is 500 InternalServerError, nothing written",
		async () => [await killInFlight(doc), await likes()], [["InternalServerError", 500], 236]);
	await step("... and with the SDK's default retries the same request succeeds at its 2nd attempt, applied once",
		async () => {
			const retrying = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint, region: "us-east-1",
				credentials: { accessKeyId: "AKIDJSADMIN", secretAccessKey: "js-admin-secret" } }));
			return [await killInFlight(retrying), await likes()];
		}, [[{ likes: 237 }, 2], 237]);

	// A tenant key under a row-level security policy on the leading key (IAM's dynamodb:LeadingKeys).
	psql(`DO $$ BEGIN CREATE ROLE gw_js_u_1001; EXCEPTION WHEN duplicate_object THEN NULL; END $$;
		GRANT SELECT, INSERT, UPDATE, DELETE ON public.${TABLE} TO gw_js_u_1001;
		ALTER TABLE public.${TABLE} ENABLE ROW LEVEL SECURITY;
		CREATE POLICY own_items ON public.${TABLE} USING (pk = 'USER#' || substr(current_user, 7));`);
	const tenant = DynamoDBDocumentClient.from(clientFor("AKIDJSU1001", "js-u1001-secret"));
	await step("RLS: a tenant key queries its own collection", async () => (await tenant.send(
		new QueryCommand(q("USER#u_1001", "", {})))).Items.map((i) => i.sk), U1001);
	await step("RLS: another tenant's item is invisible to GetItem, Query, Scan and BatchGet", async () => [
		"Item" in (await tenant.send(new GetCommand({ TableName: TABLE, Key: { pk: "USER#u_1002", sk: "PROFILE" } }))),
		(await tenant.send(new QueryCommand(q("USER#u_1002", "", {})))).Count,
		(await tenant.send(new ScanCommand({ TableName: TABLE, Select: "COUNT" }))).Count,
		(await tenant.send(new BatchGetCommand({ RequestItems: { [TABLE]: {
			Keys: [{ pk: "USER#u_1002", sk: "PROFILE" }] } } }))).Responses[TABLE],
	], [false, 0, U1001.length, []]);
	await step("RLS: a tenant key cannot write another tenant's leading key", async () => [
		(await failure(() => tenant.send(new PutCommand({ TableName: TABLE,
			Item: { pk: "USER#u_1002", sk: "PROFILE", name: "mallory" } })))).name,
		(await doc.send(new GetCommand({ TableName: TABLE, Key: { pk: "USER#u_1002", sk: "PROFILE" } }))).Item.name,
	], ["AccessDeniedException", "Ben"]);
	psql(`DROP POLICY own_items ON public.${TABLE}; ALTER TABLE public.${TABLE} DISABLE ROW LEVEL SECURITY;
		REVOKE ALL ON public.${TABLE} FROM gw_js_u_1001;`);

	// --- DeleteItem, DeleteTable
	const delDraft = { TableName: TABLE, Key: { pk: "USER#u_1001", sk: "POST#p_0018" }, ConditionExpression: "#s = :d",
		ExpressionAttributeNames: { "#s": "status" }, ExpressionAttributeValues: { ":d": "draft" }, ReturnValues: "ALL_OLD" };
	await step("DeleteItem: a draft deleted only while it is a draft (ALL_OLD)", async () => (await doc.send(
		new DeleteCommand(delDraft))).Attributes,
	{ pk: "USER#u_1001", sk: "POST#p_0018", title: "Key overloading", status: "draft" });
	await step("DeleteItem again: ConditionalCheckFailedException, the item is gone", async () => [
		(await failure(() => doc.send(new DeleteCommand(delDraft)))).name,
		"Item" in (await doc.send(new GetCommand({ TableName: TABLE, Key: delDraft.Key }))),
	], ["ConditionalCheckFailedException", false]);
	await step("ValidationException: a key without its sort key", () => nameStatus(() =>
		doc.send(new GetCommand({ TableName: TABLE, Key: { pk: "USER#u_1001" } }))), ["ValidationException", 400]);
	await step("DeleteTable, then ResourceNotFoundException", async () => [
		(await ddb.send(new DeleteTableCommand({ TableName: TABLE }))).TableDescription.TableName,
		(await ddb.send(new ListTablesCommand({}))).TableNames.includes(TABLE),
		(await failure(() => doc.send(new GetCommand({ TableName: TABLE, Key: { pk: "a", sk: "b" } })))).name,
	], [TABLE, false, "ResourceNotFoundException"]);

	gw.proc.kill("SIGTERM");
	await step("SIGTERM: the gateway exits 0", () => new Promise((resolve) => {
		if (gw.proc.exitCode !== null)
			resolve(gw.proc.exitCode);
		gw.proc.on("exit", (code) => resolve(code));
	}), 0);
	if (failed)
		console.log(`# gateway log: ${gw.logPath}`);
	return work;
}

main().then((work) => {
	console.log(`${passed} passed, ${failed} failed`);
	if (!failed && work)
		fs.rmSync(work, { recursive: true, force: true });
	process.exit(failed ? 1 : 0);
}, (e) => {
	report(false, "the scenario ran to its end", e && e.stack ? e.stack : e);
	console.log(`${passed} passed, ${failed} failed`);
	process.exit(1);
});
