-- infer_entities (issue 25, part 8): the define_entity calls proposed from the keys of
-- tables written by the posting app, the billing tenant and ElectroDB-style code.
SET client_min_messages = warning;

-- The posting app (shared/docs/mission.md), written with these templates:
--   UserProfile   USER#{userId:int}       PROFILE
--   Post          USER#{userId:int}       POST#{postId:int(4)}
--   Source        POST#{postId:int(4)}    SOURCE#{sourceId}
--   Metrics       POST#{postId:int(4)}    METRICS#{metricsId:timestamp}
--   SourceFolder  USER#{userId:int}       SOURCE#FOLDER#{folderId}
--   IntegX        USER#{userId:int}       INTEG#X#{xId}
--   UserIntegGoogle USER#{userId:int}     INTEG#GOOGLE
SELECT singletable.create_table('posting');
INSERT INTO posting (pk, sk, item)
SELECT k.pk, k.sk, jsonb_build_object('pk', k.pk, 'sk', k.sk)
FROM (SELECT 'USER#' || u AS pk, 'PROFILE' AS sk FROM generate_series(1, 120) u
      UNION ALL SELECT 'USER#' || u, 'POST#' || lpad(p::text, 4, '0')
        FROM generate_series(1, 120) u, generate_series(1, 30) p WHERE p <= u % 7
      UNION ALL SELECT 'POST#' || lpad(p::text, 4, '0'), 'SOURCE#f_' || md5(p::text || s)
        FROM generate_series(1, 30) p, generate_series(1, 3) s
      UNION ALL SELECT 'POST#' || lpad(p::text, 4, '0'),
                       'METRICS#' || to_char(timestamp '2026-06-23 09:12' + m * interval '7 minutes', 'YYYY-MM-DD"T"HH24:MI"Z"')
        FROM generate_series(1, 30) p, generate_series(1, 20) m
      UNION ALL SELECT 'USER#' || u, 'SOURCE#FOLDER#fld_' || u FROM generate_series(1, 40) u
      UNION ALL SELECT 'USER#' || u, 'INTEG#GOOGLE' FROM generate_series(1, 40) u
      UNION ALL SELECT 'USER#' || u, 'INTEG#X#handle_' || u FROM generate_series(1, 40) u) k;
SELECT entity, pk_template, sk_template, items FROM singletable.infer_entities('posting');
SELECT statement FROM singletable.infer_entities('posting');

-- The billing tenant: TENANT#acme with users, invoices and events (ISO timestamps and dates)
SELECT singletable.create_table('billing');
INSERT INTO billing (pk, sk, item)
SELECT k.pk, k.sk, jsonb_build_object('pk', k.pk, 'sk', k.sk)
FROM (SELECT 'TENANT#acme' AS pk, 'USER#u_' || (3000 + u) AS sk FROM generate_series(1, 200) u
      UNION ALL SELECT 'TENANT#acme', 'INVOICE#2026-' || lpad(i::text, 4, '0') FROM generate_series(1, 14) i
      UNION ALL SELECT 'TENANT#acme', 'EVENT#' || to_char(timestamp '2026-06-23 09:12:00' + e * interval '1 minute', 'YYYY-MM-DD"T"HH24:MI"Z"')
        FROM generate_series(1, 500) e
      UNION ALL SELECT 'TENANT#globex', 'USER#u_' || (4000 + u) FROM generate_series(1, 20) u
      UNION ALL SELECT 'TENANT#globex', 'DAY#' || to_char(date '2026-06-01' + d, 'YYYY-MM-DD') FROM generate_series(1, 10) d
      UNION ALL SELECT 'TENANT#globex', 'REQUEST#' || md5(r::text)::uuid FROM generate_series(1, 10) r) k;
SELECT entity, pk_template, sk_template, items FROM singletable.infer_entities('billing');

-- ElectroDB-style keys: lower-case tags, $service#attribute_value partition keys and
-- $entity_version sort keys
SELECT singletable.create_table('electro');
INSERT INTO electro (pk, sk, item)
SELECT k.pk, k.sk, jsonb_build_object('pk', k.pk, 'sk', k.sk)
FROM (SELECT 'user#' || u AS pk, 'profile' AS sk FROM generate_series(1, 50) u
      UNION ALL SELECT 'user#' || u, 'order#' || lpad(o::text, 6, '0') FROM generate_series(1, 50) u, generate_series(1, 4) o
      UNION ALL SELECT 'org#acme', 'user#' || u FROM generate_series(1, 50) u
      UNION ALL SELECT '$taskapp#employee_e' || e, '$employee_1' FROM generate_series(1, 30) e
      UNION ALL SELECT '$taskapp#office_' || o, '$task_1#taskid_' || lpad(t::text, 3, '0')
        FROM generate_series(1, 5) o, generate_series(1, 12) t) k;
SELECT entity, pk_template, sk_template, items FROM singletable.infer_entities('electro');
SELECT statement FROM singletable.infer_entities('electro') WHERE entity = 'Employee';

-- a partition-key-only table with ':' as delimiter, a number key (an error: templates are
-- for String keys), a sample (which says so), the cap on shapes, and an empty table
SELECT singletable.create_table('kv', 'k', NULL);
INSERT INTO kv SELECT 'SESSION:' || gen_random_uuid(), '{}' FROM generate_series(1, 20);
INSERT INTO kv SELECT 'CACHE:' || to_char(date '2026-01-01' + d, 'YYYY-MM-DD'), '{}' FROM generate_series(1, 5) d;
SELECT * FROM singletable.infer_entities('kv');
SELECT singletable.create_table('num', 'id', NULL, 'N');
SELECT singletable.put_item('num', '{"id": 7}');
SELECT singletable.put_item('num', '{"id": 1234}');
SELECT * FROM singletable.infer_entities('num');
SET client_min_messages = notice;
SELECT entity, items FROM singletable.infer_entities('posting', 100);
SELECT singletable.create_table('shapes', 'pk', NULL);
INSERT INTO shapes SELECT 'T' || chr(65 + s / 26) || chr(65 + s % 26) || '#' || i, '{}'
FROM generate_series(1, 105) s, generate_series(1, 2) i;
SELECT count(*), sum(items) FROM singletable.infer_entities('shapes');
SELECT singletable.create_table('empty');
SELECT * FROM singletable.infer_entities('empty');

-- the proposals run: every item of the three tables then belongs to the entity proposed
-- for its shape
DO $$
DECLARE stmt text;
BEGIN
  FOR stmt IN SELECT statement FROM singletable.infer_entities('posting')
              UNION ALL SELECT statement FROM singletable.infer_entities('billing')
              UNION ALL SELECT statement FROM singletable.infer_entities('electro') LOOP
    EXECUTE stmt;
  END LOOP;
END $$;
SELECT table_name, entity, pk_template, sk_template FROM singletable.entities ORDER BY 1, 2;
SELECT 'posting' AS t, singletable.entity_of('posting', pk, sk) AS entity, count(*) FROM posting GROUP BY 1, 2
UNION ALL SELECT 'billing', singletable.entity_of('billing', pk, sk), count(*) FROM billing GROUP BY 1, 2
UNION ALL SELECT 'electro', singletable.entity_of('electro', pk, sk), count(*) FROM electro GROUP BY 1, 2
ORDER BY 1, 2;

-- errors
SELECT * FROM singletable.infer_entities('posting', 0);
SELECT * FROM singletable.infer_entities('posting', 101);
SELECT * FROM singletable.infer_entities('no_such_table');
SELECT * FROM singletable.infer_entities(NULL);
CREATE ROLE regress_st_infer_reader;
SET ROLE regress_st_infer_reader;
SELECT * FROM singletable.infer_entities('posting');
RESET ROLE;
DROP ROLE regress_st_infer_reader;

DROP TABLE posting, billing, electro, kv, num, shapes, empty;
