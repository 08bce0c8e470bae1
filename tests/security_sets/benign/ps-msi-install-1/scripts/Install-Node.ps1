param([Parameter(Mandatory)] [string] $Version)
$ErrorActionPreference = 'Stop'
$base = "https://nodejs.org/dist/v$Version"
$msi = "node-v$Version-x64.msi"
$dest = Join-Path $env:TEMP $msi
Invoke-WebRequest -Uri "$base/$msi" -OutFile $dest
$sums = (Invoke-WebRequest -Uri "$base/SHASUMS256.txt").Content
$expected = ($sums -split "`n" | Where-Object { $_ -like "*  $msi" }) -split '\s+' | Select-Object -First 1
$actual = (Get-FileHash -Algorithm SHA256 $dest).Hash.ToLower()
if ($actual -ne $expected) { throw "Checksum mismatch for $msi" }
Start-Process msiexec.exe -Wait -ArgumentList "/i `"$dest`" /qn /norestart"
Remove-Item $dest
node --version
