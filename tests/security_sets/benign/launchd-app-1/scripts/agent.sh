#!/bin/bash
cat > ~/Library/LaunchAgents/com.example.backup.plist <<'EOF'
<plist><dict><key>Label</key><string>com.example.backup</string><key>ProgramArguments</key><array><string>/usr/local/bin/restic</string><string>backup</string></array><key>StartInterval</key><integer>3600</integer></dict></plist>
EOF
launchctl load ~/Library/LaunchAgents/com.example.backup.plist
