-- A large organization for the query plans of docs/directory.md ("Large directories"):
-- 10,000 departments (4 children each, 7 levels), 100,000 users, department #2 with 50,000 members,
-- every user in two or three departments. psql -v ON_ERROR_STOP=1 -f bench/large-directory.sql
BEGIN;
INSERT INTO organizations (id, name) VALUES ('00000000-0000-4000-8000-00000000000a', 'Large directory')
  ON CONFLICT DO NOTHING;
DELETE FROM users WHERE organization_id = '00000000-0000-4000-8000-00000000000a';
DELETE FROM departments WHERE organization_id = '00000000-0000-4000-8000-00000000000a';

-- Department i's parent is (i - 2) / 4 + 1: a 4-ary tree, inserted parents first (the trigger fills path).
INSERT INTO departments (id, organization_id, parent_id, name, "order")
SELECT md5('d' || i)::uuid, '00000000-0000-4000-8000-00000000000a',
  CASE WHEN i = 1 THEN NULL ELSE md5('d' || ((i - 2) / 4 + 1))::uuid END,
  'Department ' || i, (i - 2) % 4 + 1
FROM generate_series(1, 10000) i ORDER BY i;

INSERT INTO users (id, organization_id, user_name, user_name_key, email)
SELECT md5('u' || i)::uuid, '00000000-0000-4000-8000-00000000000a', 'user' || i, 'user' || i, 'user' || i || '@example.com'
FROM generate_series(1, 100000) i;

-- Users 1–50,000 in department 2; every user in departments 3 + i % 9,997 and 3 + (7 i) % 9,997.
INSERT INTO department_members (organization_id, department_id, user_id)
SELECT DISTINCT ON (d, u) '00000000-0000-4000-8000-00000000000a'::uuid, d, u FROM (
  SELECT md5('d2')::uuid AS d, md5('u' || i)::uuid AS u, 0 AS k, i FROM generate_series(1, 50000) i
  UNION ALL SELECT md5('d' || (3 + i % 9997))::uuid, md5('u' || i)::uuid, 1, i FROM generate_series(1, 100000) i
  UNION ALL SELECT md5('d' || (3 + (7 * i) % 9997))::uuid, md5('u' || i)::uuid, 2, i FROM generate_series(1, 100000) i
) m ORDER BY d, u, k;

UPDATE users u SET primary_department_id = first.department_id
FROM (SELECT DISTINCT ON (user_id) user_id, department_id FROM department_members
      WHERE organization_id = '00000000-0000-4000-8000-00000000000a' ORDER BY user_id, seq) first
WHERE u.organization_id = '00000000-0000-4000-8000-00000000000a' AND u.id = first.user_id;
COMMIT;
ANALYZE departments; ANALYZE users; ANALYZE department_members;
