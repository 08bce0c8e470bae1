#!/bin/sh
set -eu
d="$HOME/.config/systemd/user"
mkdir -p "$d"
printf '[Service]\nType=oneshot\nExecStart=/usr/bin/find %%h/app/logs -name "*.log" -mtime +30 -delete\n' > "$d/logs-opschonen.service"
printf '[Timer]\nOnCalendar=Sun 04:00\nPersistent=true\n[Install]\nWantedBy=timers.target\n' > "$d/logs-opschonen.timer"
systemctl --user daemon-reload && systemctl --user enable --now logs-opschonen.timer
