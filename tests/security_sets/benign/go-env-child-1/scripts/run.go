package main

import (
	"os"
	"os/exec"
)

func main() {
	cmd := exec.Command("./bin/app", "--config", "config.yaml")
	cmd.Env = os.Environ()
	cmd.Stdout = os.Stdout
	cmd.Run()
}
