env = ENV.to_h.merge('RAILS_ENV' => 'test')
system(env, 'bundle', 'exec', 'rake', 'test')
