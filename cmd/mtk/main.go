package main

import (
	_ "github.com/ClickHouse/clickhouse-go/v2"
	_ "github.com/Masterminds/squirrel"
	_ "github.com/gofiber/fiber/v2"
	_ "github.com/golang-jwt/jwt/v5"
	_ "github.com/jackc/pgx/v5/pgxpool"
	_ "github.com/robfig/cron/v3"
	_ "github.com/shopspring/decimal"
	_ "golang.org/x/crypto/bcrypt"
)

func main() {}
