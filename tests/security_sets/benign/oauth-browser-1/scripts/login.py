"""Authorise with Spotify (PKCE): open the browser, catch the redirect on localhost, store the token in the keyring."""
import base64
import hashlib
import http.server
import secrets
import subprocess
import urllib.parse
import webbrowser

import keyring
import requests

CLIENT_ID = "0123456789abcdef0123456789abcdef"
REDIRECT = "http://127.0.0.1:8888/callback"
verifier = secrets.token_urlsafe(64)
challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
url = "https://accounts.spotify.com/authorize?" + urllib.parse.urlencode({
    "client_id": CLIENT_ID, "response_type": "code", "redirect_uri": REDIRECT, "scope": "playlist-modify-private",
    "code_challenge_method": "S256", "code_challenge": challenge})
webbrowser.open(url)


class Catch(http.server.BaseHTTPRequestHandler):
    code = ""

    def do_GET(self):
        Catch.code = urllib.parse.parse_qs(urllib.parse.urlparse(self.path).query).get("code", [""])[0]
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"You can close this tab.")


http.server.HTTPServer(("127.0.0.1", 8888), Catch).handle_request()
token = requests.post("https://accounts.spotify.com/api/token", data={
    "grant_type": "authorization_code", "code": Catch.code, "redirect_uri": REDIRECT, "client_id": CLIENT_ID,
    "code_verifier": verifier}, timeout=30).json()
keyring.set_password("spotify-playlists", "refresh_token", token["refresh_token"])
subprocess.run(["say", "Spotify connected"], check=False)
print("stored the refresh token in the keyring")
