$ErrorActionPreference = "Stop"
if (-not (Get-Command node -ErrorAction SilentlyContinue)) {
    winget install --id OpenJS.NodeJS.LTS --exact --silent
}
if (-not (Get-Command git -ErrorAction SilentlyContinue)) {
    winget install --id Git.Git --exact --silent
}
npm ci
git config core.hooksPath .githooks
Write-Host "Done. Open a new terminal so PATH changes apply."
