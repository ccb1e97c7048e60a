// test/diff/lib/known.js: differences between singletable and dynalite that DynamoDB's
// documentation decides in singletable's favour (dynalite is not DynamoDB), or that are
// singletable's documented limits. Each rule says which cases it matches (match: the case,
// the index of the first differing step, both sides' outcomes), what DynamoDB documents and
// where (a section of shared/docs/dynamodb-semantics.md or an AWS documentation page).
// A matched difference is reported as known and does not fail the run.
'use strict';

const RULES = [];

// The first rule that argues this difference, or null.
function explain(c, i, st, other) {
  for (const r of RULES) if (r.match(c, i, st, other)) return r;
  return null;
}

module.exports = { explain, RULES };
