// test/diff/lib/known_tables.js: the known differences of the control-plane operations
// (CreateTable, DescribeTable, UpdateTable, DeleteTable, TagResource, UntagResource,
// ListTagsOfResource) where dynalite contradicts DynamoDB's documentation. Same shape as
// known.js (which appends these rules to its own): each rule names the steps it matches and
// cites the AWS page that decides.
'use strict';

const tableDesc = (doc) => doc && (doc.TableDescription || doc.Table);
const reqOf = (ctx) => ctx.s.req || {};
const gsiUpdates = (c, kind) => {
  const u = c.steps.find((x) => x.op === 'UpdateTable' && x.compare);
  return ((u && u.req.GlobalSecondaryIndexUpdates) || []).map((g) => g && g[kind]).filter(Boolean);
};
// Drops index `name` from a table description, and the attribute definitions no key uses any more.
function dropIndex(t, name) {
  if (!t || !t.GlobalSecondaryIndexes) return;
  t.GlobalSecondaryIndexes = t.GlobalSecondaryIndexes.filter((g) => g.IndexName !== name);
  if (!t.GlobalSecondaryIndexes.length) delete t.GlobalSecondaryIndexes;
  const used = new Set([...(t.KeySchema || []), ...[...(t.GlobalSecondaryIndexes || []), ...(t.LocalSecondaryIndexes || [])].flatMap((g) => g.KeySchema || [])].map((k) => k.AttributeName));
  if (t.AttributeDefinitions) t.AttributeDefinitions = t.AttributeDefinitions.filter((d) => used.has(d.AttributeName));
}

const REWRITES = [
  {
    name: 'dynalite ignores UpdateTable\'s GlobalSecondaryIndexUpdates Delete (the index and the table stay ACTIVE)',
    doc: 'AWS API Reference, UpdateTable ("UpdateTable is an asynchronous operation; while it\'s executing, the table status changes from ACTIVE to UPDATING"), UpdateTable.GlobalSecondaryIndexUpdates ("Delete - remove a global secondary index from the table") and GlobalSecondaryIndexDescription.IndexStatus ("DELETING - The index is being deleted")',
    rewrite(doc, side, ctx) {
      const t = tableDesc(doc);
      if (side !== 'dynalite' || !t || !['UpdateTable', 'DescribeTable'].includes(ctx.s.op)) return;
      for (const d of gsiUpdates(ctx.c, 'Delete')) {
        const g = (t.GlobalSecondaryIndexes || []).find((x) => x.IndexName === d.IndexName && x.IndexStatus === 'ACTIVE');
        if (!g) continue;
        if (ctx.s.op === 'UpdateTable') {
          g.IndexStatus = 'DELETING';
          if (t.TableStatus === 'ACTIVE') t.TableStatus = 'UPDATING';
        } else dropIndex(t, d.IndexName);
      }
    },
  },
  {
    name: 'after an UpdateTable Create without ProvisionedThroughput on a PAY_PER_REQUEST table (which dynalite refuses), the index is there',
    doc: 'AWS API Reference, CreateGlobalSecondaryIndexAction.ProvisionedThroughput ("Required: No"; "You must use either OnDemandThroughput or ProvisionedThroughput based on your table\'s capacity mode")',
    rewrite(doc, side, ctx) {
      const t = tableDesc(doc);
      if (side !== 'singletable' || !t || ctx.s.op !== 'DescribeTable' || ctx.s.note !== 'after update') return;
      if (!t.BillingModeSummary || t.BillingModeSummary.BillingMode !== 'PAY_PER_REQUEST') return;
      const o = tableDesc(ctx.dl.body);
      for (const cr of gsiUpdates(ctx.c, 'Create')) {
        if (cr.ProvisionedThroughput || ((o && o.GlobalSecondaryIndexes) || []).some((g) => g.IndexName === cr.IndexName)) continue;
        dropIndex(t, cr.IndexName);
      }
    },
  },
];

const MATCHES = [
  {
    name: 'TagResource/UntagResource answer an empty body (dynalite: the JSON string "")',
    doc: 'AWS API Reference, TagResource and UntagResource, Response Elements: "If the action is successful, the service sends back an HTTP 200 response with an empty HTTP body" (the harness reads an empty body as {}, what singletable.dynamodb returns)',
    match: (ctx) => ['TagResource', 'UntagResource'].includes(ctx.s.op) && ctx.st.ok && ctx.dl.ok && ctx.dl.body === ''
      && ctx.st.body && typeof ctx.st.body === 'object' && Object.keys(ctx.st.body).length === 0,
  },
  {
    name: 'UpdateTable Create of a GSI without ProvisionedThroughput on a PAY_PER_REQUEST table is accepted (dynalite: "Member must not be null")',
    doc: 'AWS API Reference, CreateGlobalSecondaryIndexAction.ProvisionedThroughput ("Required: No"; "You must use either OnDemandThroughput or ProvisionedThroughput based on your table\'s capacity mode")',
    match(ctx) {
      if (ctx.s.op !== 'UpdateTable' || !ctx.st.ok || ctx.dl.error !== 'ValidationException') return false;
      const cr = ((reqOf(ctx).GlobalSecondaryIndexUpdates) || []).map((g) => g && g.Create).filter(Boolean);
      const t = tableDesc(ctx.st.body);
      return cr.length === 1 && !cr[0].ProvisionedThroughput && t && t.BillingModeSummary && t.BillingModeSummary.BillingMode === 'PAY_PER_REQUEST'
        && /^1 validation error detected: Value null at 'globalSecondaryIndexUpdates\.1\.member\.create\.provisionedThroughput' failed to satisfy constraint: Member must not be null$/.test(String(ctx.dl.message));
    },
  },
  {
    name: 'a GSI of a PROVISIONED table without ProvisionedThroughput is refused (dynalite gives it 0 and 0)',
    doc: 'AWS API Reference, ProvisionedThroughput ("You must use ProvisionedThroughput or OnDemandThroughput based on your table\'s capacity mode"; ReadCapacityUnits/WriteCapacityUnits "Valid Range: Minimum value of 1", 0 only "If read/write capacity mode is PAY_PER_REQUEST")',
    match(ctx) {
      const q = reqOf(ctx);
      if (ctx.s.op !== 'CreateTable' || ctx.st.error !== 'ValidationException' || !ctx.dl.ok) return false;
      const bare = (q.GlobalSecondaryIndexes || []).filter((g) => !g.ProvisionedThroughput);
      return (q.BillingMode || 'PROVISIONED') === 'PROVISIONED' && bare.length > 0
        && String(ctx.st.message) === `One or more parameter values were invalid: ProvisionedThroughput must be specified for index: ${bare[0].IndexName}`;
    },
  },
  {
    name: 'a GSI or LSI with ProjectionType INCLUDE and no NonKeyAttributes is refused (dynalite creates it)',
    doc: 'sem §9.1 ("INCLUDE without them is rejected"); AWS API Reference, Projection.NonKeyAttributes ("the non-key attribute names which will be projected into the index")',
    match(ctx) {
      const q = reqOf(ctx);
      const bare = [...(q.GlobalSecondaryIndexes || []), ...(q.LocalSecondaryIndexes || [])]
        .filter((g) => g.Projection && g.Projection.ProjectionType === 'INCLUDE' && !g.Projection.NonKeyAttributes);
      return ctx.s.op === 'CreateTable' && bare.length > 0 && ctx.dl.ok && ctx.st.error === 'ValidationException'
        && String(ctx.st.message) === 'One or more parameter values were invalid: NonKeyAttributes must not be null or empty when ProjectionType is INCLUDE';
    },
  },
  {
    name: 'UpdateTable Delete of an index the table does not have is a ResourceNotFoundException (dynalite ignores the Delete)',
    doc: 'AWS API Reference, UpdateTable, Errors: ResourceNotFoundException ("The operation tried to access a nonexistent table or index")',
    match(ctx) {
      if (ctx.s.op !== 'UpdateTable' || !ctx.dl.ok || ctx.st.error !== 'ResourceNotFoundException') return false;
      const del = ((reqOf(ctx).GlobalSecondaryIndexUpdates) || []).map((g) => g && g.Delete).filter(Boolean);
      const t = tableDesc(ctx.dl.body);
      return del.length === 1 && t && !(t.GlobalSecondaryIndexes || []).some((g) => g.IndexName === del[0].IndexName)
        && String(ctx.st.message) === `Requested resource not found: Index: ${del[0].IndexName} not found`;
    },
  },
  {
    name: 'an AttributeDefinition no key of the table or its indexes uses is refused, with indexes too (dynalite checks this only for a table without indexes)',
    doc: 'sem §1.1 ("AttributeDefinitions may list only attributes used in a table or index key"); AWS API Reference, CreateTable.AttributeDefinitions ("An array of attributes that describe the key schema for the table and indexes")',
    match(ctx) {
      const q = reqOf(ctx);
      if (ctx.s.op !== 'CreateTable' || !ctx.dl.ok || ctx.st.error !== 'ValidationException'
        || String(ctx.st.message) !== 'One or more parameter values were invalid: Number of attributes in KeySchema does not exactly match number of attributes defined in AttributeDefinitions') return false;
      const idx = [...(q.GlobalSecondaryIndexes || []), ...(q.LocalSecondaryIndexes || [])];
      const used = new Set([...(q.KeySchema || []), ...idx.flatMap((g) => g.KeySchema || [])].map((k) => k.AttributeName));
      return idx.length > 0 && (q.AttributeDefinitions || []).some((d) => !used.has(d.AttributeName));
    },
  },
  {
    name: 'Scan with TotalSegments over 1,000,000 is refused (dynalite accepts it)',
    doc: 'sem §5 ("TotalSegments 1..1,000,000"); AWS API Reference, Scan.TotalSegments ("Valid Range: Minimum value of 1. Maximum value of 1000000")',
    match: (ctx) => ctx.s.op === 'Scan' && reqOf(ctx).TotalSegments > 1000000 && ctx.dl.ok && ctx.st.error === 'ValidationException'
      && String(ctx.st.message) === `1 validation error detected: Value '${reqOf(ctx).TotalSegments}' at 'totalSegments' failed to satisfy constraint: Member must have value less than or equal to 1000000`,
  },
  {
    name: 'Scan of a GSI with ConsistentRead true is refused (dynalite scans it)',
    doc: 'sem §5 ("ConsistentRead is allowed except on a GSI (same message as Query)"); AWS API Reference, Scan.ConsistentRead ("The ConsistentRead parameter is not supported on global secondary indexes. If you scan a global secondary index with ConsistentRead set to true, you will receive a ValidationException")',
    match(ctx) {
      const q = reqOf(ctx);
      const create = ctx.c.steps.find((x) => x.op === 'CreateTable' && x.req.TableName === q.TableName);
      const gsi = create && (create.req.GlobalSecondaryIndexes || []).some((g) => g.IndexName === q.IndexName);
      return ctx.s.op === 'Scan' && q.ConsistentRead === true && gsi && ctx.dl.ok && ctx.st.error === 'ValidationException'
        && String(ctx.st.message) === 'Consistent reads are not supported on global secondary indexes';
    },
  },
  {
    name: 'Scan with Segment 0 and no TotalSegments is refused (dynalite tests Segment for truth, so 0 passes)',
    doc: 'sem §5 ("Both must be given or neither"); AWS API Reference, Scan.Segment ("If you provide Segment, you must also provide TotalSegments")',
    match: (ctx) => ctx.s.op === 'Scan' && reqOf(ctx).Segment === 0 && reqOf(ctx).TotalSegments === undefined && ctx.dl.ok
      && ctx.st.error === 'ValidationException'
      && String(ctx.st.message) === 'The TotalSegments parameter is required but was not present in the request when Segment parameter is present',
  },
];

module.exports = { REWRITES, MATCHES };
