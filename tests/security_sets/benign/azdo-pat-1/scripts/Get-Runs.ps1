param(
    [Parameter(Mandatory)] [string] $Organization,
    [Parameter(Mandatory)] [string] $Project,
    [int] $Top = 20
)
$ErrorActionPreference = 'Stop'
if (-not $env:AZDO_PAT) { throw 'Set $env:AZDO_PAT to a PAT with Build (Read) scope.' }

# Azure DevOps takes a PAT as the password of HTTP basic auth with an empty user name.
$pair = ":$($env:AZDO_PAT)"
$auth = [Convert]::ToBase64String([Text.Encoding]::ASCII.GetBytes($pair))
$headers = @{ Authorization = "Basic $auth" }

$uri = "https://dev.azure.com/$Organization/$Project/_apis/build/builds?`$top=$Top&api-version=7.1"
$runs = Invoke-RestMethod -Uri $uri -Headers $headers -Method Get
$runs.value | ForEach-Object {
    [pscustomobject]@{
        Id       = $_.id
        Pipeline = $_.definition.name
        Branch   = $_.sourceBranch -replace '^refs/heads/', ''
        Result   = $_.result
        Finished = $_.finishTime
    }
} | Format-Table -AutoSize
