env = ENV.to_h.merge("RAILS_ENV" => "test", "DISABLE_SPRING" => "1")
env.delete("DATABASE_URL") # tests use config/database.yml's test database
ok = system(env, "bundle", "exec", "rspec", *ARGV)
exit(ok ? 0 : 1)
