#!/bin/bash
mkdir -p ~/.config/systemd/user
cat > ~/.config/systemd/user/notes.service <<'EOF'
[Unit]
Description=Notes server
[Service]
ExecStart=%h/.local/bin/notes-server --port 8080
[Install]
WantedBy=default.target
EOF
systemctl --user enable --now notes.service
