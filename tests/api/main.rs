mod accounts;
mod cli;
mod health;
mod helpers;
mod local_play;
mod pages;
mod redis;
mod security;
