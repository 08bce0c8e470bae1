param([string]$Item, [string]$Var, [Parameter(ValueFromRemainingArguments)]$Command)
# Unlock once per shell; BW_SESSION stays in this process only.
if (-not $env:BW_SESSION) { $env:BW_SESSION = (bw unlock --raw) }
$secret = bw get password $Item
[Environment]::SetEnvironmentVariable($Var, $secret, "Process")
try {
    & $Command[0] $Command[1..($Command.Length - 1)]
} finally {
    [Environment]::SetEnvironmentVariable($Var, $null, "Process")
}
