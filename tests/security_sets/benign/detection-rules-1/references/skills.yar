rule Skill_Download_And_Run
{
    meta:
        description = "A skill that downloads a script and pipes it to a shell"
    strings:
        $a = "curl -fsSL" ascii
        $b = "| bash" ascii
        $c = "/dev/tcp/" ascii
        $d = "~/.aws/credentials" ascii
    condition:
        ($a and $b) or $c or $d
}
