#!/bin/sh
set -e
here=$(cd "$(dirname "$0")" && pwd)
unit="$HOME/.config/systemd/user"
mkdir -p "$unit"
cat > "$unit/tmp-cleaner.service" <<EOF
[Service]
Type=oneshot
ExecStart=/bin/sh $here/clean.sh
EOF
cat > "$unit/tmp-cleaner.timer" <<EOF
[Timer]
OnCalendar=daily
Persistent=true
[Install]
WantedBy=timers.target
EOF
systemctl --user daemon-reload
systemctl --user enable --now tmp-cleaner.timer
