#!/usr/bin/env bash
set -euo pipefail
DB="${PGDATABASE:-app}"
DEST="${BACKUP_DIR:-/var/backups/postgres}"
mkdir -p "$DEST"
stamp="$(date +%Y%m%d-%H%M)"
pg_dump --format=custom --file "$DEST/$DB-$stamp.dump" "$DB"
find "$DEST" -name "$DB-*.dump" -mtime +14 -delete
logger -t pg-backup "dumped $DB to $DEST/$DB-$stamp.dump"
