package main

import (
	"context"
	"errors"
	"os"
)

// ForecastInput names a city.
type ForecastInput struct {
	// City is the city to forecast, such as Lisbon.
	City string `json:"city"`
}

// Forecast is tomorrow's weather, with what the connector was configured with.
type Forecast struct {
	City  string `json:"city"`
	Sky   string `json:"sky"`
	Units string `json:"units"`
	// KeyTail is the last four characters of the API key the connector was given.
	KeyTail string `json:"keyTail"`
}

// Tells tomorrow's weather in a city: the sky, in the configured units.
//
//mcpgen:tool readonly closedworld title="Get the forecast"
func GetForecast(ctx context.Context, in ForecastInput) (Forecast, error) {
	key := os.Getenv("WEATHER_API_KEY")
	if len(key) < 4 {
		return Forecast{}, errors.New("no API key: set WEATHER_API_KEY")
	}
	return Forecast{City: in.City, Sky: "clear", Units: os.Getenv("WEATHER_UNITS"), KeyTail: key[len(key)-4:]}, nil
}
