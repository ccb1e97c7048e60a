#!/usr/bin/env node
// test/gateway/js/streams.test.js: DynamoDB Streams through singletable-gateway with the AWS
// SDK for JavaScript v3 (@aws-sdk/client-dynamodb-streams): the posting app's writes through
// the DocumentClient (put, conditional update, a failed condition, a write that changes
// nothing, a transaction, a batch, a delete) and a plain SQL UPDATE, read back as the exact
// records in commit order with each iterator type, paging by Limit, an expired iterator and a
// re-enabled stream (a new ARN). Run by test/gateway/run.sh on a server with
// wal_level = logical and the library preloaded (GATEWAY, PGHOST, PGPORT, PATH with psql).
// One TAP line per check, a summary line, exit 1 on any failure.
"use strict";

const assert = require("node:assert/strict");
const { spawn, execFileSync } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

const { DynamoDBClient, CreateTableCommand, DeleteTableCommand, UpdateTableCommand } =
	require("@aws-sdk/client-dynamodb");
const { DynamoDBDocumentClient, BatchWriteCommand, DeleteCommand, PutCommand, TransactWriteCommand, UpdateCommand } =
	require("@aws-sdk/lib-dynamodb");
const {
	DynamoDBStreamsClient, DescribeStreamCommand, GetRecordsCommand, GetShardIteratorCommand, ListStreamsCommand,
} = require("@aws-sdk/client-dynamodb-streams");
const { unmarshall } = require("@aws-sdk/util-dynamodb");

const TABLE = "posting_streams_js";
const WAIT_MS = Number(process.env.STREAMS_WAIT || 60) * 1000;
let gateway = null;
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
		console.log(`ok ${n} - js-streams: ${name}`);
	} else {
		failed++;
		console.log(`not ok ${n} - js-streams: ${name}`);
		console.log("# " + String(why).replace(/\n/g, "\n# "));
	}
}

async function step(name, fn, expected) {
	try {
		assert.deepStrictEqual(await fn(), expected);
		report(true, name);
	} catch (e) {
		report(false, name, e && e.message ? e.message : e);
	}
}

async function errorName(fn) {
	try {
		await fn();
	} catch (e) {
		return e.name;
	}
	return "no error";
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function psql(sql) {
	execFileSync("psql", ["-X", "-q", "-U", "postgres", "-v", "ON_ERROR_STOP=1", "-c", sql],
		{ stdio: ["ignore", "ignore", "inherit"] });
}

async function startGateway(work) {
	const creds = path.join(work, "credentials");
	fs.writeFileSync(creds, "AKIDJSADMIN js-admin-secret -\n", { mode: 0o600 });
	const logPath = path.join(work, "gateway.log");
	const log = fs.openSync(logPath, "w");
	const proc = spawn(process.env.GATEWAY, ["--listen", "127.0.0.1:0", "--dsn", "user=postgres",
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

async function main() {
	const work = fs.mkdtempSync(path.join(os.tmpdir(), "gateway-js-streams."));
	const gw = await startGateway(work);
	const conf = {
		endpoint: `http://127.0.0.1:${gw.port}`, region: "us-east-1", maxAttempts: 1,
		credentials: { accessKeyId: "AKIDJSADMIN", secretAccessKey: "js-admin-secret" },
	};
	const ddb = new DynamoDBClient(conf);
	const doc = DynamoDBDocumentClient.from(ddb);
	const streams = new DynamoDBStreamsClient(conf);

	const shardOf = async (arn) => {
		const d = (await streams.send(new DescribeStreamCommand({ StreamArn: arn }))).StreamDescription;
		return d.Shards[d.Shards.length - 1].ShardId;
	};
	const iterator = async (arn, type, seq) => (await streams.send(new GetShardIteratorCommand({
		StreamArn: arn, ShardId: await shardOf(arn), ShardIteratorType: type,
		...(seq ? { SequenceNumber: seq } : {}),
	}))).ShardIterator;
	// every record from the iterator on; with want, polls until that many arrived
	const readAll = async (it, { limit, want, pages } = {}) => {
		const out = [];
		const deadline = Date.now() + WAIT_MS;
		while (it) {
			const r = await streams.send(new GetRecordsCommand({ ShardIterator: it, ...(limit ? { Limit: limit } : {}) }));
			if (pages)
				pages.push(r.Records.length);
			out.push(...r.Records);
			if (r.Records.length === 0) {
				if (want === undefined || out.length >= want || Date.now() > deadline)
					break;
				await sleep(200);
			}
			it = r.NextShardIterator;
		}
		return out;
	};
	const waitEnabled = async (arn) => {
		const deadline = Date.now() + WAIT_MS;
		while (Date.now() < deadline) {
			const d = (await streams.send(new DescribeStreamCommand({ StreamArn: arn }))).StreamDescription;
			if (d.StreamStatus === "ENABLED")
				return true;
			await sleep(200);
		}
		return false;
	};
	const summary = (recs) => recs.map((r) => [r.eventName, r.dynamodb.Keys.pk.S, r.dynamodb.Keys.sk.S]);

	const created = (await ddb.send(new CreateTableCommand({
		TableName: TABLE, BillingMode: "PAY_PER_REQUEST",
		AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }, { AttributeName: "sk", AttributeType: "S" }],
		KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }, { AttributeName: "sk", KeyType: "RANGE" }],
		StreamSpecification: { StreamEnabled: true, StreamViewType: "NEW_AND_OLD_IMAGES" },
	}))).TableDescription;
	const arn = created.LatestStreamArn;
	await step("CreateTable with a stream", () => [created.StreamSpecification, arn.endsWith("/stream/" + created.LatestStreamLabel)],
		[{ StreamEnabled: true, StreamViewType: "NEW_AND_OLD_IMAGES" }, true]);
	await step("ENABLED", () => waitEnabled(arn), true);
	await step("ListStreams", async () => (await streams.send(new ListStreamsCommand({ TableName: TABLE }))).Streams
		.map((s) => [s.StreamArn, s.TableName]), [[arn, TABLE]]);

	await doc.send(new PutCommand({ TableName: TABLE, Item: { pk: "USER#1", sk: "PROFILE", name: "Aiko", tags: new Set(["a", "b"]) } }));
	await doc.send(new PutCommand({ TableName: TABLE, Item: { pk: "USER#1", sk: "POST#1", title: "hello", likes: 0 } }));
	await doc.send(new UpdateCommand({
		TableName: TABLE, Key: { pk: "USER#1", sk: "POST#1" }, UpdateExpression: "SET likes = likes + :one",
		ConditionExpression: "attribute_exists(pk)", ExpressionAttributeValues: { ":one": 1 },
	}));
	await step("a failed condition writes no record", () => errorName(() => doc.send(new UpdateCommand({
		TableName: TABLE, Key: { pk: "USER#1", sk: "POST#1" }, UpdateExpression: "SET likes = :ten",
		ConditionExpression: "likes = :ten", ExpressionAttributeValues: { ":ten": 10 },
	}))), "ConditionalCheckFailedException");
	await doc.send(new PutCommand({ TableName: TABLE, Item: { pk: "USER#1", sk: "POST#1", title: "hello", likes: 1 } }));
	await doc.send(new TransactWriteCommand({ TransactItems: [
		{ Put: { TableName: TABLE, Item: { pk: "USER#1", sk: "POST#2", title: "two" } } },
		{ Update: { TableName: TABLE, Key: { pk: "USER#1", sk: "PROFILE" }, UpdateExpression: "SET posts = :n",
			ExpressionAttributeValues: { ":n": 2 } } },
	] }));
	await doc.send(new BatchWriteCommand({ RequestItems: { [TABLE]: [
		{ PutRequest: { Item: { pk: "USER#2", sk: "PROFILE", name: "Ben" } } },
		{ DeleteRequest: { Key: { pk: "USER#1", sk: "POST#2" } } },
	] } }));
	await doc.send(new DeleteCommand({ TableName: TABLE, Key: { pk: "USER#1", sk: "POST#1" } }));
	psql(`UPDATE public.${TABLE} SET item = jsonb_set(item, '{name}', '"Benjamin"') WHERE pk = 'USER#2' AND sk = 'PROFILE'`);

	const expected = [["INSERT", "USER#1", "PROFILE"], ["INSERT", "USER#1", "POST#1"], ["MODIFY", "USER#1", "POST#1"],
		["INSERT", "USER#1", "POST#2"], ["MODIFY", "USER#1", "PROFILE"], ["INSERT", "USER#2", "PROFILE"],
		["REMOVE", "USER#1", "POST#2"], ["REMOVE", "USER#1", "POST#1"], ["MODIFY", "USER#2", "PROFILE"]];
	// the records of one transaction in either order
	const grouped = (s) => [...s.slice(0, 3), ...s.slice(3, 5).sort(), ...s.slice(5, 7).sort(), ...s.slice(7)];
	const recs = await readAll(await iterator(arn, "TRIM_HORIZON"), { want: expected.length });
	await step("TRIM_HORIZON: the exact records in commit order", () => grouped(summary(recs)), grouped(expected));
	const seqs = recs.map((r) => BigInt(r.dynamodb.SequenceNumber));
	await step("sequence numbers increase", () => seqs.every((s, i) => i === 0 || s > seqs[i - 1]), true);
	const mod = recs.find((r) => r.eventName === "MODIFY" && r.dynamodb.Keys.sk.S === "POST#1");
	await step("MODIFY, unmarshalled: old and new image", () => mod && [unmarshall(mod.dynamodb.OldImage).likes,
		unmarshall(mod.dynamodb.NewImage).likes, mod.dynamodb.ApproximateCreationDateTime instanceof Date], [0, 1, true]);
	const ins = recs.find((r) => r.eventName === "INSERT" && r.dynamodb.Keys.sk.S === "PROFILE");
	await step("INSERT: a string set survives", () => ins && [[...unmarshall(ins.dynamodb.NewImage).tags].sort(),
		ins.dynamodb.OldImage, ins.eventSource, ins.eventVersion], [["a", "b"], undefined, "aws:dynamodb", "1.1"]);
	const sql = recs.find((r) => r.eventName === "MODIFY" && r.dynamodb.Keys.pk.S === "USER#2");
	await step("the plain SQL UPDATE", () => sql && [unmarshall(sql.dynamodb.OldImage).name, unmarshall(sql.dynamodb.NewImage).name],
		["Ben", "Benjamin"]);
	const pages = [];
	await step("paging by Limit 3", async () => summary(await readAll(await iterator(arn, "TRIM_HORIZON"), { limit: 3, pages })),
		summary(recs));
	await step("pages of at most 3", () => Math.max(...pages) <= 3, true);
	const s2 = recs.length > 3 ? recs[2].dynamodb.SequenceNumber : "0".repeat(21);
	await step("AT_SEQUENCE_NUMBER", async () => summary(await readAll(await iterator(arn, "AT_SEQUENCE_NUMBER", s2))),
		summary(recs.slice(2)));
	await step("AFTER_SEQUENCE_NUMBER", async () => summary(await readAll(await iterator(arn, "AFTER_SEQUENCE_NUMBER", s2))),
		summary(recs.slice(3)));
	const latest = await iterator(arn, "LATEST");
	await doc.send(new PutCommand({ TableName: TABLE, Item: { pk: "USER#3", sk: "PROFILE" } }));
	await step("LATEST: only what came after", async () => summary(await readAll(latest, { want: 1 })),
		[["INSERT", "USER#3", "PROFILE"]]);
	const old = await iterator(arn, "TRIM_HORIZON");
	psql("ALTER SYSTEM SET singletable.stream_iterator_lifetime = '1s'");
	psql("SELECT pg_catalog.pg_reload_conf()");
	await sleep(2500);
	await step("an expired iterator", () => errorName(() => streams.send(new GetRecordsCommand({ ShardIterator: old }))),
		"ExpiredIteratorException");
	psql("ALTER SYSTEM RESET singletable.stream_iterator_lifetime");
	psql("SELECT pg_catalog.pg_reload_conf()");
	await sleep(500);

	await ddb.send(new UpdateTableCommand({ TableName: TABLE, StreamSpecification: { StreamEnabled: false } }));
	const again = (await ddb.send(new UpdateTableCommand({ TableName: TABLE,
		StreamSpecification: { StreamEnabled: true, StreamViewType: "NEW_IMAGE" } }))).TableDescription;
	await step("disable and re-enable: a new ARN", () => [again.LatestStreamArn !== arn, again.StreamSpecification.StreamViewType],
		[true, "NEW_IMAGE"]);
	await step("re-enabled: ENABLED", () => waitEnabled(again.LatestStreamArn), true);
	await doc.send(new DeleteCommand({ TableName: TABLE, Key: { pk: "USER#3", sk: "PROFILE" } }));
	await step("NEW_IMAGE: a REMOVE has Keys only", async () => (await readAll(await iterator(again.LatestStreamArn, "TRIM_HORIZON"),
		{ want: 1 })).map((r) => [r.eventName, Object.keys(r.dynamodb).filter((k) => k.endsWith("Image")), r.dynamodb.StreamViewType]),
	[["REMOVE", [], "NEW_IMAGE"]]);
	await step("the old stream: DISABLED", async () => (await streams.send(new DescribeStreamCommand({ StreamArn: arn })))
		.StreamDescription.StreamStatus, "DISABLED");
	await step("ResourceNotFoundException for an unknown stream", () => errorName(() => streams.send(
		new DescribeStreamCommand({ StreamArn: arn + "9" }))), "ResourceNotFoundException");
	await ddb.send(new DeleteTableCommand({ TableName: TABLE }));

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
