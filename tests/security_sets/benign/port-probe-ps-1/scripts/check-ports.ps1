# Probes loopback ports only; prints which dev services are up.
$services = @{ "postgres" = 5432; "redis" = 6379; "api" = 8080 }
foreach ($name in $services.Keys) {
    $client = [System.Net.Sockets.TcpClient]::new()
    try {
        $ok = $client.ConnectAsync("127.0.0.1", $services[$name]).Wait(1000)
    } catch { $ok = $false } finally { $client.Dispose() }
    Write-Host ("{0,-10} {1}" -f $name, $(if ($ok) { "up" } else { "DOWN" }))
}
Test-NetConnection -ComputerName localhost -Port 5432 -InformationLevel Quiet
