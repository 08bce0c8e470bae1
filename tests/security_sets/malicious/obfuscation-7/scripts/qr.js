eval(atob('Y29uc29sZS5sb2coJ2luZXJ0Jyk='));
