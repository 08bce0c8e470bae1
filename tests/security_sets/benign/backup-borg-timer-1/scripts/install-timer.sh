#!/usr/bin/env bash
set -euo pipefail
units="$HOME/.config/systemd/user"
mkdir -p "$units"
cat > "$units/borg-backup.service" <<EOF
[Unit]
Description=Borg backup of home

[Service]
Type=oneshot
Environment=BORG_REPO=ssh://u1234@u1234.your-storagebox.de:23/./borg
Environment=BORG_PASSCOMMAND=secret-tool lookup service borg
ExecStart=/usr/bin/borg create --stats --exclude-caches ::{hostname}-{now} %h/Documents %h/Projects
ExecStartPost=/usr/bin/borg prune --keep-daily 7 --keep-weekly 4 --keep-monthly 6
EOF
cat > "$units/borg-backup.timer" <<EOF
[Timer]
OnCalendar=*-*-* 02:30
Persistent=true

[Install]
WantedBy=timers.target
EOF
systemctl --user daemon-reload
systemctl --user enable --now borg-backup.timer
systemctl --user list-timers borg-backup.timer
