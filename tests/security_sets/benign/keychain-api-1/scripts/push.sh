#!/usr/bin/env bash
set -euo pipefail
file="$1"
token="${NOTION_TOKEN:-$(security find-generic-password -a "$USER" -s notion-token -w)}"
parent="${NOTION_PARENT_PAGE:?set NOTION_PARENT_PAGE}"
title="$(head -n1 "$file" | sed 's/^# //')"
body="$(jq -n --arg t "$title" --arg p "$parent" '{parent: {page_id: $p}, properties: {title: {title: [{text: {content: $t}}]}}}')"
curl -sS -X POST https://api.notion.com/v1/pages \
  -H "Authorization: Bearer $token" \
  -H "Notion-Version: 2022-06-28" \
  -H "Content-Type: application/json" \
  -d "$body"
