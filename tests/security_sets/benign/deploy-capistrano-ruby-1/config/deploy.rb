# Capistrano settings for the app; the SSH key comes from the user's agent.
lock "~> 3.19"
set :application, "shop"
set :repo_url, "git@github.com:acme/shop.git"
set :deploy_to, "/srv/shop"
set :linked_files, %w[config/master.key .env]
set :ssh_options, { forward_agent: true, auth_methods: %w[publickey] }

namespace :deploy do
  after :publishing, :restart do
    on roles(:app) do
      execute :sudo, :systemctl, :restart, "shop-puma"
    end
  end
end
