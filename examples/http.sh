#!/usr/bin/env bash
# The HTTP gateway with curl: create a database and a log table, append rows as JSON, scan them back.
# Run: bash examples/http.sh
set -euo pipefail
GATEWAY=${SLUICE_GATEWAY_URL:-http://127.0.0.1:8080}
json=(-sS --fail-with-body -H 'content-type: application/json')

curl "${json[@]}" -XPOST "$GATEWAY/v1/databases" -d '{"name": "demo", "if_not_exists": true}'
echo
curl "${json[@]}" -XPOST "$GATEWAY/v1/databases/demo/tables" -d '{
  "name": "clicks", "if_not_exists": true,
  "schema": {"columns": [{"name": "id", "type": "INT"}, {"name": "page", "type": "STRING"}]},
  "bucket_count": 2
}'
echo
curl "${json[@]}" -XPOST "$GATEWAY/v1/databases/demo/tables/clicks/append" \
  -d '{"rows": [{"id": 1, "page": "/home"}, {"id": 2, "page": "/docs"}, {"id": 3, "page": "/home"}]}'
echo
# No cursor: every bucket from its start; "more" says whether to call again with "cursor".
curl "${json[@]}" -XPOST "$GATEWAY/v1/databases/demo/tables/clicks/scan" -d '{"limit": 100}'
echo
